import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/commerce.ts';
import { type Clock, englishOf, LicenceStatus, licenceStatusLabels } from '../../protocol/index.ts';
import { requestLanguage } from '../http/language.ts';
import { toCsv } from '../reports/export.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText } from '../http/validation.ts';
import { hotAction } from '../http/rate-limit.ts';
import { LICENCE_VALIDITY_MS, LicenceRepository, type LicenceRow } from './licence-repository.ts';
import { platformOrgId } from './order-repository.ts';

export { LICENCE_VALIDITY_MS };

/** Most codes one generate call makes (the contract's bound). */
export const MAX_GENERATE = c.MAX_GENERATE;

export const LicenceMessage = englishOf({
  Invalid: 'licence.invalid',
  Used: 'licence.used',
  StaffOnly: 'licence.staffOnly',
  NotUnused: 'licence.notUnused',
  Sn: 'licence.sn',
});

// Crockford base32 without I, L, O, U (licence-repository.ts makes the codes).
const CODE = /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

/** yyyy-MM-dd HH:mm:ss in China time (UTC+8), the spec's date-time format for exports. */
function chinaDateTime(ms: number): string {
  return new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** ISOBUS licence codes (devices-and-commerce: iso-bus_list, /license-manage/index and the public /isobus-activate). */
export async function licenceRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock }): Promise<void> {
  const { db, clock } = deps;
  const licences = new LicenceRepository(db);
  const config = { permission: 'iso-bus_list' };
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const filterOf = (q: c.LicenceListQuery) => ({ status: q.status === undefined ? undefined : Number(q.status), label: q.label?.trim(), code: q.code?.trim() });
  const view = (r: LicenceRow) => ({
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
    const pageNum = Number(q.pageNum ?? '1');
    const pageSize = Number(q.pageSize ?? '10');
    const { total, rows } = await licences.page([...callerOf(req).scope], filterOf(q), pageNum, pageSize);
    return ok({ total, list: rows.map(view) });
  });

  // The whole filtered set as CSV (a spreadsheet opens it), newest first: headers in the caller's language,
  // status labels rather than codes, and the spec's date formats in China time (issue 20).
  api.get('/iso-bus/export', { config, schema: { querystring: c.LicenceListQuery } }, async (req, reply) => {
    const rows = await licences.all([...callerOf(req).scope], filterOf(req.query), 100_000);
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
      if (caller.orgId !== (await platformOrgId(db))) throw new ApiError(ApiCode.Forbidden, 'licence.staffOnly');
      const orgId = req.body.orgId ?? caller.orgId;
      if (!caller.scope.has(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      const codes = await licences.generate(orgId, req.body.count, cleanText(req.body.label, 'field.label', false), clock.now());
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
      const rows = await licences.owners(req.body.ids);
      if (rows.length !== new Set(req.body.ids).size || rows.some((r) => !caller.scope.has(r.org_id))) throw new ApiError(ApiCode.NotFound, 'licence.invalid');
      if (rows.some((r) => r.status !== LicenceStatus.Unused)) throw new ApiError(ApiCode.BadRequest, 'licence.notUnused');
      await licences.distribute(req.body.ids, label, clock.now());
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
      const row = await licences.findByCode(code);
      if (!row) throw new ApiError(ApiCode.BadRequest, 'licence.invalid');
      if (!(await licences.activate(row, sn, now))) throw new ApiError(ApiCode.BadRequest, 'licence.used');
      return ok({ code, sn, expireTime: now + row.validity_ms });
    },
  );
}
