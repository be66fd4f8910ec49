import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/commerce.ts';
import type { Kysely } from 'kysely';
import { type Clock, englishOf, LicenceStatus, licenceStatusLabels } from '../../protocol/index.ts';
import { requestLanguage } from '../http/language.ts';
import { toCsv } from '../reports/export.ts';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText } from '../http/validation.ts';
import { hotAction } from '../http/rate-limit.ts';

/** Licence validity: the spec's only option, 3 years (devices-and-commerce section 9). */
export const LICENCE_VALIDITY_MS = 3 * 365 * 86_400_000;
/** Most codes one generate call makes (the contract's bound). */
export const MAX_GENERATE = c.MAX_GENERATE;

export const LicenceMessage = englishOf({
  Invalid: 'licence.invalid',
  Used: 'licence.used',
  StaffOnly: 'licence.staffOnly',
  NotUnused: 'licence.notUnused',
  Sn: 'licence.sn',
});

// Crockford base32 without I, L, O, U: 16 characters carry 80 random bits, far beyond guessing.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE = /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

/** yyyy-MM-dd HH:mm:ss in China time (UTC+8), the spec's date-time format for exports. */
function chinaDateTime(ms: number): string {
  return new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

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

/** ISOBUS licence codes (devices-and-commerce: iso-bus_list, /license-manage/index and the public /isobus-activate). */
export function registerLicenceRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock }): void {
  const { db, clock } = deps;
  const config = { permission: 'iso-bus_list' };
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const filtered = (scope: number[], q: c.LicenceListQuery) => {
    let query = db.selectFrom('licences').where('org_id', 'in', scope);
    if (q.status !== undefined) query = query.where('status', '=', Number(q.status));
    if (q.label?.trim()) query = query.where(containsIgnoringCase('label', q.label.trim()));
    if (q.code?.trim()) query = query.where(containsIgnoringCase('code', q.code.trim()));
    return query;
  };
  const view = (r: { id: number; code: string; label: string; status: number; device_sn: string; operated_at: number; expire_time: number | null; created_at: number; validity_ms: number }) => ({
    id: r.id,
    code: r.code,
    label: r.label,
    status: r.status,
    deviceSn: r.device_sn,
    operatedAt: r.operated_at,
    expireTime: r.expire_time,
    validityYears: Math.round(r.validity_ms / (365 * 86_400_000)),
    createdAt: r.created_at,
  });

  api.get('/iso-bus/list', { config, schema: { querystring: c.LicenceListQuery } }, async (req) => {
    const q = req.query;
    const query = filtered([...callerOf(req).scope], q);
    const pageNum = Number(q.pageNum ?? '1');
    const pageSize = Number(q.pageSize ?? '10');
    const total = Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
    return ok({ total, list: rows.map(view) });
  });

  // The whole filtered set as CSV (a spreadsheet opens it), newest first: headers in the caller's language,
  // status labels rather than codes, and the spec's date formats in China time (issue 20).
  api.get('/iso-bus/export', { config, schema: { querystring: c.LicenceListQuery } }, async (req, reply) => {
    const rows = await filtered([...callerOf(req).scope], req.query).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100_000).execute();
    const lang = requestLanguage(req);
    const h = (en: string, zh: string) => (lang === 'zh' ? zh : en);
    type Row = (typeof rows)[number];
    const csv = toCsv<Row>(
      [
        { header: h('Activation code', '激活码'), value: (r) => r.code },
        { header: h('Label', '标签'), value: (r) => r.label },
        { header: h('Status', '状态'), value: (r) => licenceStatusLabels.find((m) => m.value === r.status)?.[lang] ?? String(r.status) },
        { header: h('Device SN', '设备SN'), value: (r) => r.device_sn },
        { header: h('Validity', '有效期'), value: (r) => { const years = Math.round(r.validity_ms / (365 * 86_400_000)); return lang === 'zh' ? `${years}年` : `${years} years`; } },
        { header: h('Expiry date', '到期日期'), value: (r) => (r.expire_time ? chinaDateTime(r.expire_time).slice(0, 10) : '') },
        { header: h('Operation time', '操作时间'), value: (r) => chinaDateTime(r.operated_at) },
      ],
      rows,
    );
    const stamp = chinaDateTime(clock.now()).slice(0, 10).replace(/-/g, '');
    return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="activation-codes-${stamp}.csv"`).send(csv);
  });

  api.post(
    '/iso-bus/generate',
    {
      config,
      schema: { body: c.GenerateLicencesBody },
    },
    async (req) => {
      const caller = callerOf(req);
      const root = await db.selectFrom('organisations').select('id').where('parent_id', 'is', null).orderBy('id').executeTakeFirst();
      if (caller.orgId !== root?.id) throw new ApiError(ApiCode.Forbidden, 'licence.staffOnly');
      const orgId = req.body.orgId ?? caller.orgId;
      if (!caller.scope.has(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      const codes = await generateLicences(db, orgId, req.body.count, cleanText(req.body.label, 'field.label', false), clock.now(), null);
      return ok({ codes });
    },
  );

  api.post(
    '/iso-bus/distribute',
    {
      config,
      schema: { body: c.DistributeLicencesBody },
    },
    async (req) => {
      const caller = callerOf(req);
      const label = cleanText(req.body.label, 'field.label', true);
      const rows = await db.selectFrom('licences').select(['id', 'org_id', 'status']).where('id', 'in', req.body.ids).execute();
      if (rows.length !== new Set(req.body.ids).size || rows.some((r) => !caller.scope.has(r.org_id))) throw new ApiError(ApiCode.NotFound, 'licence.invalid');
      if (rows.some((r) => r.status !== LicenceStatus.Unused)) throw new ApiError(ApiCode.BadRequest, 'licence.notUnused');
      await db.updateTable('licences').set({ status: LicenceStatus.Distributed, label, operated_at: clock.now() }).where('id', 'in', req.body.ids).where('status', '=', LicenceStatus.Unused).execute();
      return ok(null);
    },
  );

  // The public /isobus-activate page: whoever holds a code activates it for a device, once.
  api.post(
    '/isobus-activate/activate',
    {
      config: { public: true, ...hotAction },
      schema: { body: c.ActivateLicenceBody },
    },
    async (req) => {
      const code = req.body.code.trim().toUpperCase();
      const sn = req.body.sn.trim();
      if (!sn) throw new ApiError(ApiCode.BadRequest, 'licence.sn');
      if (!CODE.test(code)) throw new ApiError(ApiCode.BadRequest, 'licence.invalid');
      const now = clock.now();
      const row = await db.selectFrom('licences').selectAll().where('code', '=', code).executeTakeFirst();
      if (!row) throw new ApiError(ApiCode.BadRequest, 'licence.invalid');
      const done = await db
        .updateTable('licences')
        .set({ status: LicenceStatus.Used, device_sn: sn, operated_at: now, expire_time: now + row.validity_ms })
        .where('id', '=', row.id)
        .where('status', '<>', LicenceStatus.Used)
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) !== 1) throw new ApiError(ApiCode.BadRequest, 'licence.used');
      return ok({ code, sn, expireTime: now + row.validity_ms });
    },
  );
}
