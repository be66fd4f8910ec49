import { randomBytes } from 'node:crypto';
import { type ExpressionBuilder, PostgresAdapter, type SelectQueryBuilder, sql } from 'kysely';
import { OnlineState } from '../../protocol/index.ts';
import { currentOrgTree, orgIdIn, orgIdInParameter, type OrgIdsParameter, orgIdsParameter } from '../accounts/org-scope.ts';
import { accountNameTaken, insertAccount } from '../accounts/repository.ts';
import { noRightsNotifier, type RightsNotifier } from '../accounts/rights-bus.ts';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { prepared } from '../db/prepared.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import { type DeviceTotals, ORG_SORT_KEYS, type OrgDetail, type OrgSortKey, type OrgView } from '../../protocol/api/orgs.ts';

/** Organisation freeze state (platform-core section 4). */
export const FreezeState = { Unfrozen: 1, Frozen: 2 } as const;

export type { DeviceTotals, OrgDetail, OrgView };

export interface OrgQuery {
  readonly scope: ReadonlySet<number>;
  /** The scope is every organisation: no filter is needed. */
  readonly scopeCoversAll?: boolean;
  readonly pageNum: number;
  readonly pageSize: number;
  readonly name?: string | undefined;
  /** Sort column (default id, newest first: platform-core section 9). */
  readonly orderBy?: OrgSortKey | undefined;
  readonly order?: 'asc' | 'desc' | undefined;
  /** The tree version the scope was taken from (Caller.treeVersion): the device counts use that tree, unread. */
  readonly treeVersion?: number | undefined;
}

/** Columns /org/list sorts by. */
export { ORG_SORT_KEYS, type OrgSortKey };
const SORT_COLUMNS = { id: 'organisations.id', name: 'organisations.name', createdAt: 'organisations.created_at', expireTime: 'organisations.expire_time' } as const;

/** Descriptive fields, all optional on update. */
export interface OrgFields {
  readonly name?: string | undefined;
  readonly alias?: string | undefined;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly remark?: string | undefined;
  readonly contactPerson?: string | undefined;
  readonly publicKey?: string | undefined;
  readonly expireTime?: number | null | undefined;
  /** The login account's customer type. */
  readonly customerType?: number | undefined;
}

export interface NewOrg extends OrgFields {
  readonly parentId: number;
  readonly name: string;
  readonly account: string;
  /** scrypt hash of the login account's password, made before the transaction. */
  readonly passwordHash: string;
  readonly roleId: number;
  readonly now: number;
  /** Most organisations allowed below the root; undefined for no limit. */
  readonly limit: number | undefined;
}

export type CreateResult = { readonly id: number } | { readonly refused: 'limit' | 'account-taken' };

/** What still hangs off an organisation and so blocks its deletion. */
export interface OrgDependents {
  readonly children: number;
  readonly devices: number;
  /** Accounts other than the organisation's own login account. */
  readonly accounts: number;
}

// Generated keys are 24 random bytes, as the seeded root's.
const newEnrollKey = () => randomBytes(24).toString('base64url');

/** Organisations in the database. */
export class OrgRepository {
  readonly #db: Db;
  /** Told after every committed change to the tree, so open consoles' scopes and freezes follow it. */
  readonly #rights: RightsNotifier;

  constructor(db: Db, rights: RightsNotifier = noRightsNotifier) {
    this.#db = db;
    this.#rights = rights;
  }

  /** The parent of an organisation (null for a root), or undefined when it does not exist. */
  async parentOf(id: number): Promise<number | null | undefined> {
    const row = await this.#db.selectFrom('organisations').select('parent_id').where('id', '=', id).executeTakeFirst();
    return row?.parent_id;
  }

  /** One page of the organisations in scope, newest first unless sorted otherwise (platform-core section 9). */
  async list(q: OrgQuery): Promise<{ total: number; list: OrgView[] }> {
    if (q.scope.size === 0) return { total: 0, list: [] };
    const limit = q.pageSize;
    const offset = (q.pageNum - 1) * q.pageSize;
    const sort = SORT_COLUMNS[q.orderBy ?? 'id'];
    const order = q.order ?? 'desc';
    let rows: OrgRow[];
    let total: number;
    if (q.name) {
      // A name search builds its query each time (searches are typed, not paged through 200 times a second).
      let base = this.#db.selectFrom('organisations');
      if (!q.scopeCoversAll) base = base.where(orgIdIn(this.#db, 'organisations.id', q.scope));
      base = base.where(containsIgnoringCase('organisations.name', q.name));
      const [counted, page] = await Promise.all([
        base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
        withLogin(base).orderBy(sort, order).orderBy('organisations.id', 'desc').limit(limit).offset(offset).execute(),
      ]);
      total = Number(counted.total);
      rows = page;
    } else {
      // Without a name filter the total is the scope's size: the scope comes from the current tree, so no
      // count over thousands of rows is needed on every page. The page's query is compiled once per sort
      // (server/db/prepared.ts): the list is the hottest call of the API.
      total = q.scope.size;
      rows = q.scopeCoversAll
        ? (await allOrgsPage(sort, order)(this.#db, limit, offset)).rows
        : (await scopedOrgsPage(sort, order)(this.#db, orgIdsParameter(this.#db, q.scope), limit, offset)).rows;
    }
    const counts = await this.#subtreeCounts(rows.map((r) => r.id), q.treeVersion);
    return { total, list: rows.map((r) => toView(r, counts.get(r.id))) };
  }

  /** Each organisation's device totals over its whole subtree: a parent counts its children's devices. */
  async #subtreeCounts(orgIds: number[], treeVersion?: number): Promise<Map<number, DeviceTotals>> {
    const tree = await currentOrgTree(this.#db, treeVersion);
    const subtrees = new Map(orgIds.map((id) => [id, [...tree.scopeOf(id)]]));
    const all = new Set<number>();
    for (const ids of subtrees.values()) for (const id of ids) all.add(id);
    const own = await this.#deviceCountsByOrg([...all]);
    const out = new Map<number, DeviceTotals>();
    for (const [id, ids] of subtrees) {
      let total = 0;
      let online = 0;
      for (const sub of ids) {
        const c = own.get(sub);
        if (c) {
          total += c.total;
          online += c.online;
        }
      }
      out.set(id, { total, online, offline: total - online });
    }
    return out;
  }

  async get(id: number): Promise<OrgDetail | undefined> {
    const row = await withLogin(this.#db.selectFrom('organisations').where('organisations.id', '=', id))
      .select('organisations.enroll_key')
      .executeTakeFirst();
    if (!row) return undefined;
    const counts = await this.#subtreeCounts([id]);
    return { ...toView(row, counts.get(id)), enrollKey: row.enroll_key };
  }

  /** Device totals over a set of organisations (an organisation's subtree, or a caller's scope). */
  async deviceTotals(orgIds: Iterable<number>, coversAll = false): Promise<DeviceTotals> {
    const ids = [...orgIds];
    if (ids.length === 0) return { total: 0, online: 0, offline: 0 };
    let query = this.#db.selectFrom('devices').select((eb) => [eb.fn.countAll<number>().as('total'), onlineSum(eb).as('online')]);
    if (!coversAll) query = query.where(orgIdIn(this.#db, 'org_id', ids));
    const row = await query.executeTakeFirstOrThrow();
    return totals(row.total, row.online);
  }

  /**
   * Creates an organisation with its enrolment key and login account. The limit check and the insert
   * share a transaction; on PostgreSQL an advisory lock also serialises concurrent creations.
   */
  async create(input: NewOrg): Promise<CreateResult> {
    if (await accountNameTaken(this.#db, input.account)) return { refused: 'account-taken' };
    try {
      const created = await this.#db.transaction().execute(async (trx) => {
        if (input.limit !== undefined) {
          await lockOrgCreation(trx);
          if ((await countBelowRoot(trx)) >= input.limit) return { refused: 'limit' } as const;
        }
        const org = await trx
          .insertInto('organisations')
          .values({ ...orgColumns(input), parent_id: input.parentId, name: input.name, enroll_key: newEnrollKey(), created_at: input.now })
          .returning('id')
          .executeTakeFirstOrThrow();
        const accountId = await insertAccount(trx, {
          orgId: org.id,
          roleId: input.roleId,
          account: input.account,
          nickname: input.name,
          email: input.email ?? '',
          phone: input.phone ?? '',
          passwordHash: input.passwordHash,
          expireTime: input.expireTime ?? null,
          now: input.now,
        });
        await trx.updateTable('organisations').set({ login_account_id: accountId }).where('id', '=', org.id).execute();
        if (input.customerType !== undefined) await trx.updateTable('accounts').set({ customer_type: input.customerType }).where('id', '=', accountId).execute();
        return { id: org.id };
      });
      // The organisations above now reach the new one: their consoles' scopes grow (PRES-1).
      if ('id' in created) await this.#rights.changed({ orgs: [input.parentId] });
      return created;
    } catch (err) {
      // Two requests racing for the same account name: the unique constraint decides.
      if (isUniqueViolation(err)) return { refused: 'account-taken' };
      throw err;
    }
  }

  /**
   * Updates descriptive fields. The expiry is the organisation's accounts' expiry too (the console warns
   * each of them before it); the role is its login account's.
   */
  async update(id: number, fields: OrgFields, roleId: number | undefined): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const columns = orgColumns(fields);
      if (Object.keys(columns).length > 0) await trx.updateTable('organisations').set(columns).where('id', '=', id).execute();
      if (fields.expireTime !== undefined) {
        await trx.updateTable('accounts').set({ expire_time: fields.expireTime }).where('org_id', '=', id).execute();
      }
      if (fields.customerType !== undefined) {
        await trx
          .updateTable('accounts')
          .set({ customer_type: fields.customerType })
          .where('id', '=', (eb) => eb.selectFrom('organisations').select('login_account_id').where('id', '=', id))
          .execute();
      }
      if (roleId === undefined) return;
      await trx
        .updateTable('accounts')
        .set({ role_id: roleId })
        .where('id', '=', (eb) => eb.selectFrom('organisations').select('login_account_id').where('id', '=', id))
        .execute();
    });
    // Its login account's role or its accounts' expiry may have changed.
    await this.#rights.changed({ orgs: [id] });
  }

  async setFreezeState(id: number, state: number): Promise<void> {
    await this.#db.updateTable('organisations').set({ freeze_state: state }).where('id', '=', id).execute();
    // A freeze ends the sessions of every account at or below it, open sockets included.
    await this.#rights.changed({ orgs: [id] });
  }

  /** The organisation's own login account id, if it has one. */
  async loginAccountOf(id: number): Promise<number | undefined> {
    const row = await this.#db.selectFrom('organisations').select('login_account_id').where('id', '=', id).executeTakeFirst();
    return row?.login_account_id ?? undefined;
  }

  /** The role of the organisation's login account, if it has one. */
  async loginRoleOf(id: number): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom('organisations')
      .innerJoin('accounts', 'accounts.id', 'organisations.login_account_id')
      .select('accounts.role_id')
      .where('organisations.id', '=', id)
      .executeTakeFirst();
    return row?.role_id;
  }

  /** The roles held by the organisation's own accounts (its login account and the others). */
  async rolesHeldIn(id: number): Promise<number[]> {
    const rows = await this.#db.selectFrom('accounts').select('role_id').distinct().where('org_id', '=', id).execute();
    return rows.map((r) => r.role_id);
  }

  async dependents(id: number): Promise<OrgDependents> {
    // Ids start at 1, so 0 excludes nothing for an organisation without a login account.
    const loginId = (await this.loginAccountOf(id)) ?? 0;
    const [children, devices, accounts] = await Promise.all([
      this.#db.selectFrom('organisations').select((eb) => eb.fn.countAll<number>().as('n')).where('parent_id', '=', id).executeTakeFirstOrThrow(),
      this.#db.selectFrom('devices').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', id).executeTakeFirstOrThrow(),
      this.#db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', id)
        .where('id', '!=', loginId)
        .executeTakeFirstOrThrow(),
    ]);
    return { children: Number(children.n), devices: Number(devices.n), accounts: Number(accounts.n) };
  }

  /**
   * Deletes an organisation that has no dependents, with its login account. Roles it owns pass to its
   * parent, which could already see and manage them.
   */
  async remove(id: number, parentId: number | null): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const login = await trx.selectFrom('organisations').select('login_account_id').where('id', '=', id).executeTakeFirst();
      await trx.updateTable('roles').set({ org_id: parentId }).where('org_id', '=', id).execute();
      // The login account's sessions go with it (ON DELETE CASCADE); the caller ends them first so that
      // open sockets are closed too.
      if (login?.login_account_id) await trx.deleteFrom('accounts').where('id', '=', login.login_account_id).execute();
      await trx.deleteFrom('organisations').where('id', '=', id).execute();
    });
    await this.#rights.changed({ orgs: [id] });
  }

  async #deviceCountsByOrg(orgIds: number[]): Promise<Map<number, DeviceTotals>> {
    const out = new Map<number, DeviceTotals>();
    if (orgIds.length === 0) return out;
    const { rows } = await deviceCountsByOrg(this.#db, orgIdsParameter(this.#db, orgIds));
    for (const row of rows) out.set(row.org_id, totals(row.total, row.online));
    return out;
  }
}

type OrgSelect = SelectQueryBuilder<Database, 'organisations', object>;

/** The listed columns of an organisation with its login account and that account's role. */
function withLogin(base: OrgSelect) {
  return base
    .leftJoin('accounts', 'accounts.id', 'organisations.login_account_id')
    .leftJoin('roles', 'roles.id', 'accounts.role_id')
    .select([
      'organisations.id',
      'organisations.parent_id',
      'organisations.name',
      'organisations.alias',
      'organisations.email',
      'organisations.phone',
      'organisations.remark',
      'organisations.contact_person',
      'organisations.public_key',
      'organisations.freeze_state',
      'organisations.expire_time',
      'organisations.created_at',
      'accounts.id as account_id',
      'accounts.account',
      'accounts.role_id',
      'accounts.customer_type',
      'roles.name as role',
    ]);
}

type OrgRow = Awaited<ReturnType<ReturnType<typeof withLogin>['executeTakeFirstOrThrow']>>;
type SortColumn = (typeof SORT_COLUMNS)[OrgSortKey];

/** One page of every organisation (a caller whose scope covers them all), per sort. */
const allOrgsPage = perSort((sort, order) =>
  prepared((db, limit: number, offset: number) => withLogin(db.selectFrom('organisations')).orderBy(sort, order).orderBy('organisations.id', 'desc').limit(limit).offset(offset)),
);

/** One page of the organisations in a scope (bound as one parameter), per sort. */
const scopedOrgsPage = perSort((sort, order) =>
  prepared((db, scope: OrgIdsParameter, limit: number, offset: number) =>
    withLogin(db.selectFrom('organisations').where(orgIdInParameter(db, 'organisations.id', scope)))
      .orderBy(sort, order)
      .orderBy('organisations.id', 'desc')
      .limit(limit)
      .offset(offset),
  ),
);

/** A prepared query per sort column and direction, made when first asked for (eight at most). */
function perSort<Q>(make: (sort: SortColumn, order: 'asc' | 'desc') => Q): (sort: SortColumn, order: 'asc' | 'desc') => Q {
  const made = new Map<string, Q>();
  return (sort, order) => {
    const key = `${sort} ${order}`;
    let query = made.get(key);
    if (query === undefined) {
      query = make(sort, order);
      made.set(key, query);
    }
    return query;
  };
}

/** Each organisation's own devices, total and online, for the ids bound as one parameter. */
const deviceCountsByOrg = prepared((db, orgIds: OrgIdsParameter) =>
  db
    .selectFrom('devices')
    .select((eb) => ['org_id', eb.fn.countAll<number>().as('total'), onlineSum(eb).as('online')])
    .where(orgIdInParameter(db, 'org_id', orgIds))
    .groupBy('org_id'),
);

function toView(r: OrgRow, counts: DeviceTotals | undefined): OrgView {
  return {
    id: r.id,
    parentId: r.parent_id,
    name: r.name,
    alias: r.alias,
    account: r.account ?? '',
    accountId: r.account_id,
    roleId: r.role_id,
    role: r.role ?? '',
    email: r.email,
    phone: r.phone,
    remark: r.remark,
    contactPerson: r.contact_person,
    publicKey: r.public_key,
    customerType: r.customer_type ?? 1,
    freezeState: r.freeze_state,
    expireTime: r.expire_time,
    createdAt: r.created_at,
    ...(counts ?? { total: 0, online: 0, offline: 0 }),
  };
}

/** Column values for the descriptive fields that were given. */
function orgColumns(f: OrgFields) {
  return {
    ...(f.name !== undefined ? { name: f.name } : {}),
    ...(f.alias !== undefined ? { alias: f.alias } : {}),
    ...(f.email !== undefined ? { email: f.email } : {}),
    ...(f.phone !== undefined ? { phone: f.phone } : {}),
    ...(f.remark !== undefined ? { remark: f.remark } : {}),
    ...(f.contactPerson !== undefined ? { contact_person: f.contactPerson } : {}),
    ...(f.publicKey !== undefined ? { public_key: f.publicKey } : {}),
    ...(f.expireTime !== undefined ? { expire_time: f.expireTime } : {}),
  };
}

function onlineSum(eb: ExpressionBuilder<Database, 'devices'>) {
  return eb.fn.sum<number>(eb.case().when('online_state', '=', OnlineState.Online).then(1).else(0).end());
}

// COUNT and SUM come back as bigint (a number here) on PostgreSQL, and SUM over no rows as null.
function totals(total: number | string | bigint, online: number | string | bigint | null): DeviceTotals {
  const t = Number(total);
  const on = Number(online ?? 0);
  return { total: t, online: on, offline: t - on };
}

async function countBelowRoot(db: Db): Promise<number> {
  const row = await db
    .selectFrom('organisations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('parent_id', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// Any fixed number: it only has to be the same for every node creating organisations.
const ORG_CREATE_LOCK = 0x0c0de0;

// SQLite runs one transaction at a time on its single connection; PostgreSQL needs the lock, held until
// the transaction ends, so that two nodes cannot both see room for one more organisation.
async function lockOrgCreation(db: Db): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock(${ORG_CREATE_LOCK})`.execute(db);
}
