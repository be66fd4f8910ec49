// Queries of ISOBUS licence codes (server/commerce/licence-routes.ts checks and answers with them), and the
// codes a paid order or staff generate.
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { LicenceStatus } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { Database, LicenceTable } from '../db/schema.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import type { LicenceListQuery } from '../../protocol/api/commerce.ts';

/** Licence validity: the spec's only option, 3 years (devices-and-commerce section 9). */
export const LICENCE_VALIDITY_MS = 3 * 365 * 86_400_000;

// Crockford base32 without I, L, O, U: 16 characters carry 80 random bits, far beyond guessing.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export type LicenceRow = Selectable<LicenceTable>;

/** The list's and export's filters: the contract's query (parts of the label and code) with its status read as a number. */
export type LicenceFilter = { readonly [K in 'label' | 'code']?: LicenceListQuery[K] | undefined } & { readonly status?: number | undefined };

/** A fresh activation code, XXXX-XXXX-XXXX-XXXX. */
export function newLicenceCode(): string {
  const bytes = randomBytes(16);
  let s = '';
  for (let i = 0; i < 16; i++) s += ALPHABET[(bytes[i] as number) % 32];
  return s.match(/.{4}/g)?.join('-') ?? s;
}

/** Makes `count` unused codes for an organisation (generation by staff, or a paid iso_bus_activation_code order). */
export async function generateLicences(db: Kysely<Database>, orgId: number, count: number, label: string, now: number, orderNo: string | null): Promise<string[]> {
  const codes = Array.from({ length: count }, newLicenceCode);
  await db
    .insertInto('licences')
    .values(codes.map((code) => ({ org_id: orgId, code, label, status: LicenceStatus.Unused, validity_ms: LICENCE_VALIDITY_MS, order_no: orderNo, operated_at: now, created_at: now })))
    .execute();
  return codes;
}

/** Licence codes of organisations. */
export class LicenceRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  #filtered(scope: readonly number[], filter: LicenceFilter) {
    let query = this.#db.selectFrom('licences').where('org_id', 'in', scope);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.label) query = query.where(containsIgnoringCase('label', filter.label));
    if (filter.code) query = query.where(containsIgnoringCase('code', filter.code));
    return query;
  }

  /** A page of the codes of `scope`, newest first. */
  async page(scope: readonly number[], filter: LicenceFilter, pageNum: number, pageSize: number): Promise<{ total: number; rows: LicenceRow[] }> {
    const query = this.#filtered(scope, filter);
    const total = Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
    return { total, rows };
  }

  /** The whole filtered set (at most `limit`), newest first. */
  all(scope: readonly number[], filter: LicenceFilter, limit: number): Promise<LicenceRow[]> {
    return this.#filtered(scope, filter).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  generate(orgId: number, count: number, label: string, now: number): Promise<string[]> {
    return generateLicences(this.#db, orgId, count, label, now, null);
  }

  owners(ids: readonly number[]): Promise<{ id: number; org_id: number; status: number }[]> {
    return this.#db.selectFrom('licences').select(['id', 'org_id', 'status']).where('id', 'in', ids).execute();
  }

  /** The unused ones of `ids` become distributed under `label`. */
  async distribute(ids: readonly number[], label: string, now: number): Promise<void> {
    await this.#db.updateTable('licences').set({ status: LicenceStatus.Distributed, label, operated_at: now }).where('id', 'in', ids).where('status', '=', LicenceStatus.Unused).execute();
  }

  findByCode(code: string): Promise<LicenceRow | undefined> {
    return this.#db.selectFrom('licences').selectAll().where('code', '=', code).executeTakeFirst();
  }

  /** Uses the code for device `sn` from `now`, once; false when it was used already. */
  async activate(row: LicenceRow, sn: string, now: number): Promise<boolean> {
    const done = await this.#db
      .updateTable('licences')
      .set({ status: LicenceStatus.Used, device_sn: sn, operated_at: now, expire_time: now + row.validity_ms })
      .where('id', '=', row.id)
      .where('status', '<>', LicenceStatus.Used)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }
}
