import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/approvals.ts';
import { commandPermission } from '../../protocol/index.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { areaOfKind, ContentArea } from '../content/items.ts';
import type { ApprovalRow } from './tables.ts';

/** The key an approved request still needs its requester to hold: the command's, or a campaign's content push key. */
function requiredKey(row: ApprovalRow): string | undefined {
  if (row.kind !== 'campaign') return commandPermission(row.msg_id);
  const area = areaOfKind((JSON.parse(row.params) as { kind?: string }).kind ?? '');
  return area ? ContentArea[area].push : undefined;
}

/**
 * Four-eyes approval (issue 23): any account lists its own requests; approvers (`approve_dangerous`) list,
 * approve and reject their organisations' requests. Every decision is checked on the caller's rights now
 * (the guard loads them per request) and is in the operation log (a POST that changes state). A route plugin.
 */
export async function approvalRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  // Decorated by the approvals plugin (./plugin.ts), registered before this one.
  const approvals = app.approvals;

  api.post('/approval/list', { config: { permission: 'session' }, schema: { body: c.ApprovalListBody, response: { 200: c.ApprovalPageReply } } }, async (req) => ok(await approvals.list(callerOf(req), req.body)));

  api.post('/approval/count', { config: { permission: 'session' }, schema: { response: { 200: c.ApprovalCountReply } } }, async (req) => ok(await approvals.count(callerOf(req))));

  api.post('/approval/:id/approve', { config: { permission: c.APPROVE_PERMISSION }, schema: { params: c.ApprovalIdPath, response: { 200: c.ApprovalReply } } }, async (req) =>
    ok(await approvals.approve(callerOf(req), Number(req.params.id), requiredKey)),
  );

  api.post('/approval/:id/reject', { config: { permission: c.APPROVE_PERMISSION }, schema: { params: c.ApprovalIdPath, body: c.ApprovalRejectBody, response: { 200: c.ApprovalReply } } }, async (req) =>
    ok(await approvals.reject(callerOf(req), Number(req.params.id), req.body?.reason?.trim() ?? '')),
  );

  // The thresholds are an organisation setting: the organisation key, for organisations in the caller's scope
  // (as the recording and two-step policies).
  api.get('/approval/policy/:orgId', { config: { permission: 'session' }, schema: { params: c.ApprovalPolicyPath, response: { 200: c.ApprovalPolicyReply } } }, async (req) => {
    const caller = callerOf(req);
    const orgId = Number(req.params.orgId);
    if (!caller.scope.has(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    return ok(await approvals.policy(orgId));
  });

  api.post('/approval/policy', { config: { permission: 'org_list' }, schema: { body: c.ApprovalPolicyBody, response: { 200: c.ApprovalPolicySetReply } } }, async (req) => {
    const caller = callerOf(req);
    const { orgId, ...policy } = req.body;
    if (!caller.scope.has(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    await approvals.repo.setPolicy(orgId, policy);
    return ok(null);
  });
}
