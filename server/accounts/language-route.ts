import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ModifyLanguageBody } from '../../protocol/api/auth.ts';
import type { Db } from '../db/database.ts';
import { ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { hotAction } from '../http/rate-limit.ts';
import { setAccountLanguage } from './repository.ts';

/** The contract's body of /common/modify-language (protocol/api/auth.ts). */
export const modifyLanguageBody = ModifyLanguageBody;

/** POST /common/modify-language: stores the caller's language; /home/getAccountDetail returns it as languageType. */
export async function languageRoute(app: FastifyInstance, { db }: { readonly db: Db }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/common/modify-language',
    { config: { permission: 'session', ...hotAction }, schema: { body: ModifyLanguageBody } },
    async (req) => {
      await setAccountLanguage(db, callerOf(req).accountId, req.body.languageType);
      return ok(null);
    },
  );
}
