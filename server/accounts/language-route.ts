import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { hotAction } from '../http/rate-limit.ts';

export const modifyLanguageBody = {
  type: 'object',
  additionalProperties: false,
  required: ['languageType'],
  // Language values (platform-core section 4): 1 Chinese, 2 English.
  properties: { languageType: { type: 'integer', enum: [1, 2] } },
} as const;

/** POST /common/modify-language: stores the caller's language; /home/getAccountDetail returns it as languageType. */
export function registerLanguageRoute(app: FastifyInstance, db: Db): void {
  app.post<{ Body: { languageType: 1 | 2 } }>(
    '/common/modify-language',
    { config: { permission: 'session', ...hotAction }, schema: { body: modifyLanguageBody } },
    async (req) => {
      await db.updateTable('accounts').set({ language: req.body.languageType }).where('id', '=', callerOf(req).accountId).execute();
      return ok(null);
    },
  );
}
