import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/commerce.ts';
import { type Clock, englishOf, msg, OrderDemandState, ruleMessageKey } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText } from '../http/validation.ts';
import { checkIdentity } from '../../protocol/index.ts';
import { DemandRepository, type DemandRow } from './demand-repository.ts';
import { platformOrgId } from './order-repository.ts';

export const DemandMessage = englishOf({
  NotFound: 'demand.notFound',
  PositiveInteger: 'demand.positiveInteger',
  Transition: 'demand.transition',
  StaffOnly: 'demand.staffOnly',
  Link: 'demand.link',
  Date: 'demand.date',
  Option: 'demand.option',
  Fitting: 'demand.fitting',
});

/**
 * What each action may do from each state (devices-and-commerce section 4: 0 temp store, 1 not approved,
 * 2 rejected, 3 approved, 4 finished). Anything not listed is refused server-side.
 */
export const DEMAND_TRANSITIONS = {
  update: [0, 2],
  submit: [0, 2],
  approve: [1],
  reject: [1],
  finish: [3],
  delete: [0, 2],
  addMore: [3, 4],
} as const satisfies Record<string, readonly number[]>;
export type DemandAction = keyof typeof DEMAND_TRANSITIONS;

/** The state an action leads to. */
export const DEMAND_TARGET: Record<Exclude<DemandAction, 'delete' | 'update' | 'addMore'>, number> = {
  submit: OrderDemandState.NotApproved,
  approve: OrderDemandState.Approved,
  reject: OrderDemandState.Rejected,
  finish: OrderDemandState.Finished,
};

export function allowed(action: DemandAction, state: number): boolean {
  return (DEMAND_TRANSITIONS[action] as readonly number[]).includes(state);
}

type FormField = c.DemandField;
type DemandBody = c.DemandBody;

const positive = (n: number) => {
  if (!Number.isSafeInteger(n) || n <= 0 || n > 10_000_000) throw new ApiError(ApiCode.BadRequest, 'demand.positiveInteger');
  return n;
};

/** Checks each dynamic field by its type and rule (`today` dates national IDs); text values are trimmed. */
function cleanFields(fields: readonly FormField[], today: number): FormField[] {
  return fields.map((f) => {
    const label = cleanText(f.label, 'field.fieldName', true);
    const options = f.options?.map((o) => o.trim()).filter(Boolean);
    const value = Array.isArray(f.value) ? f.value.map((v) => v.trim()) : f.value.trim();
    if (f.rule !== undefined && f.type !== 'text') throw new ApiError(ApiCode.BadRequest, msg('demand.ruleOnText', { label }));
    if (f.type === 'checkbox') {
      const values = Array.isArray(value) ? value : value ? [value] : [];
      if (options && values.some((v) => !options.includes(v))) throw new ApiError(ApiCode.BadRequest, 'demand.option');
      return { label, type: f.type, value: values, ...(options ? { options } : {}) };
    }
    if (Array.isArray(value)) throw new ApiError(ApiCode.BadRequest, msg('demand.optionOf', { label }));
    if (f.type === 'select' && value && options && !options.includes(value)) throw new ApiError(ApiCode.BadRequest, 'demand.option');
    if (f.type === 'date' && value && !/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(value)) throw new ApiError(ApiCode.BadRequest, 'demand.date');
    if (f.type === 'upload' && value && !/^https?:\/\/\S+$/i.test(value)) throw new ApiError(ApiCode.BadRequest, 'demand.link');
    if (f.rule !== undefined) {
      const problem = value ? checkIdentity(f.rule, value, today) : undefined;
      if (problem) throw new ApiError(ApiCode.BadRequest, msg('demand.fieldProblem', { label, problem: msg(ruleMessageKey(problem)) }));
    }
    return { label, type: f.type, value, ...(options ? { options } : {}), ...(f.rule ? { rule: f.rule } : {}) };
  });
}

function view(r: DemandRow) {
  return {
    id: r.id,
    number: r.number,
    orgId: r.org_id,
    name: r.name,
    customer: r.customer,
    kind: r.kind,
    model: r.model,
    template: r.template,
    fittings: JSON.parse(r.fittings) as unknown,
    fields: JSON.parse(r.fields) as unknown,
    quantity: r.quantity,
    additionalQuantity: r.additional_quantity,
    specialNeeds: r.special_needs,
    state: r.state,
    rejectReason: r.reject_reason,
    parentNumber: r.parent_number,
    shareToken: r.share_token,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Order demands (order-requirements_list, /order-demand/index) and the public /order-demand-detail view. */
export async function demandRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock }): Promise<void> {
  const { db, clock } = deps;
  const demands = new DemandRepository(db);
  const config = { permission: 'order-requirements_list' };
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const numberOf = (now: number) => `OD${new Date(now + 8 * 3_600_000).toISOString().slice(0, 10).replace(/-/g, '')}${randomBytes(3).toString('hex').toUpperCase()}`;
  const inScope = async (id: number, caller: Caller) => {
    const row = await demands.find(id);
    if (!row || !caller.scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'demand.notFound');
    return row;
  };
  const isStaff = async (caller: Caller) => caller.orgId === (await platformOrgId(db));
  const valuesOf = (b: DemandBody) => {
    const fittings = b.fittings.map((f) => {
      const sku = f.sku.trim();
      if (!sku || !Number.isSafeInteger(f.number) || f.number <= 0) throw new ApiError(ApiCode.BadRequest, 'demand.fitting');
      return { sku, number: f.number };
    });
    return {
      name: cleanText(b.name, 'field.name', true),
      customer: cleanText(b.customer, 'field.customer', true),
      // Stored as text: rows copied by add-same carry the stored value back.
      kind: String(b.kind),
      model: cleanText(b.model, 'field.model', true),
      template: cleanText(b.template, 'field.template', false),
      fittings: JSON.stringify(fittings),
      fields: JSON.stringify(cleanFields(b.fields, clock.now())),
      quantity: positive(b.quantity),
      special_needs: cleanText(b.specialNeeds, 'field.specialNeeds', false),
    };
  };
  const insert = async (caller: Caller, values: ReturnType<typeof valuesOf>, state: number, extra: { parent_number?: string; additional_quantity?: number } = {}) => {
    const now = clock.now();
    const row = await demands.insert({ ...values, ...extra, number: numberOf(now), org_id: caller.orgId, state, share_token: randomBytes(16).toString('base64url'), created_by: caller.account, created_at: now, updated_at: now });
    return view(row);
  };
  /** Moves a demand between states only as DEMAND_TRANSITIONS allows, atomically. */
  const move = async (id: number, action: keyof typeof DEMAND_TARGET, set: { reject_reason?: string } = {}) => {
    const done = await demands.updateIfIn(id, DEMAND_TRANSITIONS[action], { state: DEMAND_TARGET[action], updated_at: clock.now(), ...set });
    if (!done) throw new ApiError(ApiCode.BadRequest, 'demand.transition');
  };

  api.get(
    '/order-requirements/list',
    { config, schema: { querystring: c.DemandListQuery } },
    async (req) => {
      const q = req.query;
      const filter = { number: q.number?.trim(), customer: q.customer?.trim(), state: q.state === undefined ? undefined : Number(q.state) };
      const pageNum = Number(q.pageNum ?? '1');
      const pageSize = Number(q.pageSize ?? '10');
      const { total, rows } = await demands.page([...callerOf(req).scope], filter, pageNum, pageSize);
      return ok({ total, list: rows.map(view) });
    },
  );

  api.get('/order-requirements/detail/:id', { config, schema: { params: c.DemandPath } }, async (req) =>
    ok(view(await inScope(Number(req.params.id), callerOf(req)))),
  );

  api.post('/order-requirements/add', { config, schema: { body: c.DemandBody } }, async (req) =>
    ok(await insert(callerOf(req), valuesOf(req.body), req.body.submit ? OrderDemandState.NotApproved : OrderDemandState.TempStore)),
  );

  api.post('/order-requirements/update', { config, schema: { body: c.DemandBody } }, async (req) => {
    const row = await inScope(req.body.id ?? 0, callerOf(req));
    if (!allowed('update', row.state)) throw new ApiError(ApiCode.BadRequest, 'demand.transition');
    const values = valuesOf(req.body);
    const done = await demands.updateIfIn(row.id, DEMAND_TRANSITIONS.update, { ...values, state: req.body.submit ? OrderDemandState.NotApproved : OrderDemandState.TempStore, updated_at: clock.now() });
    if (!done) throw new ApiError(ApiCode.BadRequest, 'demand.transition');
    return ok(null);
  });

  api.delete('/order-requirements/delete', { config, schema: { body: c.DemandIdBody } }, async (req) => {
    const row = await inScope(req.body.id, callerOf(req));
    if (!(await demands.deleteIfIn(row.id, DEMAND_TRANSITIONS.delete))) throw new ApiError(ApiCode.BadRequest, 'demand.transition');
    return ok(null);
  });

  // Add same: a new draft copied from any demand. Add more: an appended quantity for an approved demand.
  api.post('/order-requirements/add-same', { config, schema: { body: c.DemandActionBody } }, async (req) => {
    const caller = callerOf(req);
    const row = await inScope(req.body.id, caller);
    const { name, customer, kind, model, template, fittings, fields, quantity, special_needs } = row;
    return ok(await insert(caller, { name, customer, kind, model, template, fittings, fields, quantity, special_needs }, OrderDemandState.TempStore));
  });

  api.post('/order-requirements/add-more', { config, schema: { body: c.DemandActionBody } }, async (req) => {
    const caller = callerOf(req);
    const row = await inScope(req.body.id, caller);
    if (!allowed('addMore', row.state)) throw new ApiError(ApiCode.BadRequest, 'demand.transition');
    const more = positive(req.body.quantity ?? Number.NaN);
    const { name, customer, kind, model, template, fittings, fields, special_needs } = row;
    return ok(await insert(caller, { name, customer, kind, model, template, fittings, fields, quantity: more, special_needs }, OrderDemandState.NotApproved, { parent_number: row.number, additional_quantity: more }));
  });

  api.post('/order-requirements/submit', { config, schema: { body: c.DemandActionBody } }, async (req) => {
    await move((await inScope(req.body.id, callerOf(req))).id, 'submit');
    return ok(null);
  });

  api.post('/order-requirements/finish', { config, schema: { body: c.DemandActionBody } }, async (req) => {
    await move((await inScope(req.body.id, callerOf(req))).id, 'finish');
    return ok(null);
  });

  api.post('/order-requirements/review', {
    config,
    schema: { body: c.DemandReviewBody },
  }, async (req) => {
    const caller = callerOf(req);
    const body = req.body;
    if (!(await isStaff(caller))) throw new ApiError(ApiCode.Forbidden, 'demand.staffOnly');
    const row = await inScope(body.id, caller);
    if (body.approve) await move(row.id, 'approve');
    else await move(row.id, 'reject', { reject_reason: cleanText(body.reason, 'field.reason', true) });
    return ok(null);
  });

  // The public detail page holds the demand's number and its share token; either wrong looks the same.
  api.get(
    '/order-demand-detail/view',
    { config: { public: true }, schema: { querystring: c.DemandViewQuery } },
    async (req) => {
      const row = await demands.findByNumber(req.query.number);
      if (!row || row.share_token !== req.query.token) throw new ApiError(ApiCode.NotFound, 'demand.notFound');
      const { shareToken: _token, orgId: _org, ...open } = view(row);
      return ok(open);
    },
  );
}
