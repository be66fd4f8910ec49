import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE, permissionCatalogue } from '../../protocol/index.ts';
import { tokenDigest } from '../../server/auth/sessions.ts';
import type { Db } from '../../server/db/database.ts';
import { api, injectTestServer, type TestServer } from '../support/server.ts';

/*
 * The grant rules as a property over HTTP (security issue, item 3; review M3 for role ownership). For
 * arbitrary organisation trees, arbitrary role sets (owned anywhere in the tree or by the platform), login
 * roles held anywhere (older data may break the ownership rule) and an arbitrary organisation and role
 * manager placed anywhere, the server offers, grants, resets and edits exactly what the rule allows:
 *  - /org/loginRoles offers the roles it sees (its own, those owned in its subtree, platform roles at the
 *    root) that grant no key it lacks and may be held under its organisation (a role owned by an
 *    organisation is held only in that organisation's subtree); the admin role only to an admin;
 *  - /org/add under any organisation of its scope succeeds with exactly those roles that may be held there;
 *  - /org/restpassword succeeds on an organisation below it exactly when its login holds no key it lacks;
 *  - /permit/updateRole succeeds on exactly the roles it owns, grants no key it lacks and that no account
 *    outside its scope holds;
 * and every account it created or took over holds, as the server computes it, no key it lacks.
 * The world is written straight to the database (the API's own paths are tested elsewhere).
 */

const KEYS = ['home_list', 'device_list', 'role_list', 'admin_list', 'notice_publish'] as const;
const ALL_KEYS: ReadonlySet<string> = new Set(permissionCatalogue.map((e) => e.key));

interface RoleSpec {
  /** Owning node index, or null for a platform role. */
  readonly org: number | null;
  readonly keys: readonly string[];
}

interface World {
  /** parents[i] is the parent index of node i + 1; node 0 hangs under the platform root. */
  readonly parents: readonly number[];
  readonly roles: readonly RoleSpec[];
  /** The login role of each node: an index into roles, or -1 for the admin role. */
  readonly logins: readonly number[];
  /** The manager's organisation: a node index, or -1 for the platform root. */
  readonly managerOrg: number;
  /** The manager's role: an index into roles, or -1 for the admin role. */
  readonly managerRole: number;
  /** Picks the organisation of the manager's scope that /org/add creates under. */
  readonly addUnder: number;
}

const worldArb: fc.Arbitrary<World> = fc.integer({ min: 1, max: 4 }).chain((n) =>
  fc.integer({ min: 1, max: 4 }).chain((roleCount) =>
    fc.record({
      parents: fc.tuple(...Array.from({ length: n - 1 }, (_, i) => fc.nat({ max: i }))),
      roles: fc.tuple(
        ...Array.from({ length: roleCount }, () => fc.record({ org: fc.option(fc.nat({ max: n - 1 }), { nil: null }), keys: fc.subarray([...KEYS]) })),
      ),
      logins: fc.tuple(...Array.from({ length: n }, () => fc.integer({ min: -1, max: roleCount - 1 }))),
      managerOrg: fc.integer({ min: -1, max: n - 1 }),
      // The admin role is one choice in five.
      managerRole: fc.oneof({ weight: 1, arbitrary: fc.constant(-1) }, { weight: 4, arbitrary: fc.nat({ max: roleCount - 1 }) }),
      addUnder: fc.nat({ max: 100 }),
    }),
  ),
);

/** Node indexes in the subtree of `root` (-1: the platform root, so every node). */
function subtree(parents: readonly number[], root: number): Set<number> {
  if (root === -1) return new Set(Array.from({ length: parents.length + 1 }, (_, i) => i));
  const out = new Set([root]);
  for (let i = 1; i <= parents.length; i++) if (out.has(parents[i - 1] ?? -1)) out.add(i);
  return out;
}

describe('grant rules over HTTP (property)', () => {
  let ts: TestServer;
  let db: Db;
  let platformId = 0;
  let adminRoleId = 0;
  let run = 0;

  beforeAll(async () => {
    // REST only: the API answers through app.inject(), no socket.
    ts = await injectTestServer('sqlite');
    db = ts.server.db;
    platformId = (await db.selectFrom('organisations').select('id').where('parent_id', 'is', null).executeTakeFirstOrThrow()).id;
    adminRoleId = (await db.selectFrom('roles').select('id').where('name', '=', ADMIN_ROLE).executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => ts?.stop());

  async function insertAccount(orgId: number, roleId: number, account: string): Promise<number> {
    const now = Date.now();
    const row = await db
      .insertInto('accounts')
      .values({ org_id: orgId, role_id: roleId, account, nickname: '', password_hash: 'x', update_password_last_time: now, expire_time: null, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** A session for an account, opened in the database: checking keys this way spends no login budget. */
  async function sessionFor(accountId: number): Promise<string> {
    const token = randomBytes(24).toString('hex');
    const now = Date.now();
    await db.insertInto('sessions').values({ token_hash: tokenDigest(token), account_id: accountId, created_at: now, expires_at: now + 3_600_000 }).execute();
    return token;
  }

  /** The keys the server gives an account. */
  async function keysOf(accountId: number): Promise<Set<string>> {
    const detail = await api<{ permissionList: string[] }>(ts.server.url, 'GET', '/home/getAccountDetail', { token: await sessionFor(accountId) });
    expect(detail.code).toBe(20000);
    return new Set(detail.data.permissionList);
  }

  it('offers, grants, resets and edits exactly what the rule allows (roles held only in their owner subtree), and nothing reached holds a key the manager lacks', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, async (w) => {
        const tag = `g${run++}`;
        const now = Date.now();
        // The organisations.
        const orgIds: number[] = [];
        for (let i = 0; i <= w.parents.length; i++) {
          const parentId = i === 0 ? platformId : (orgIds[w.parents[i - 1] ?? 0] as number);
          const row = await db
            .insertInto('organisations')
            .values({ parent_id: parentId, name: `${tag}-${i}`, enroll_key: randomBytes(12).toString('hex'), created_at: now })
            .returning('id')
            .executeTakeFirstOrThrow();
          orgIds.push(row.id);
        }
        const orgOf = (node: number) => (node === -1 ? platformId : (orgIds[node] as number));
        // The roles: every one carries home_list, so that any login the server lets through has a menu.
        const roleIds: number[] = [];
        for (const [i, spec] of w.roles.entries()) {
          const row = await db
            .insertInto('roles')
            .values({ name: `${tag}-role${i}`, summary: '', org_id: spec.org === null ? null : orgOf(spec.org), created_by: null })
            .returning('id')
            .executeTakeFirstOrThrow();
          roleIds.push(row.id);
          await db
            .insertInto('role_permissions')
            .values([...new Set(['home_list', ...spec.keys])].map((permission) => ({ role_id: row.id, permission })))
            .execute();
        }
        const roleOf = (index: number) => (index === -1 ? adminRoleId : (roleIds[index] as number));
        const keysOfRole = (index: number): ReadonlySet<string> => (index === -1 ? ALL_KEYS : new Set(['home_list', ...(w.roles[index] as RoleSpec).keys]));
        // Each organisation's login account.
        for (const [node, login] of w.logins.entries()) {
          const accountId = await insertAccount(orgOf(node), roleOf(login), `${tag}l${node}`);
          await db.updateTable('organisations').set({ login_account_id: accountId }).where('id', '=', orgOf(node)).execute();
        }
        // The manager: an account (not the login) of its organisation, holding org_list and role_list besides
        // its role's keys through a role of its own, so that every /org/* and role call is open to it.
        const managerKeys = new Set([...keysOfRole(w.managerRole), 'org_list', 'role_list']);
        let managerRoleId = adminRoleId;
        if (w.managerRole !== -1) {
          const row = await db
            .insertInto('roles')
            .values({ name: `${tag}-manager`, summary: '', org_id: orgOf(w.managerOrg), created_by: null })
            .returning('id')
            .executeTakeFirstOrThrow();
          managerRoleId = row.id;
          await db
            .insertInto('role_permissions')
            .values([...managerKeys].map((permission) => ({ role_id: row.id, permission })))
            .execute();
        }
        const managerId = await insertAccount(orgOf(w.managerOrg), managerRoleId, `${tag}m`);
        const token = await sessionFor(managerId);
        const call = <T>(method: 'GET' | 'POST', url: string, body?: unknown) => api<T>(ts.server.url, method, url, { token, body });

        // The model, from the rule's words: the roles the manager sees, and which of those it may grant.
        const scope = subtree(w.parents, w.managerOrg);
        const isAdmin = w.managerRole === -1;
        const covers = (index: number) => (index === -1 ? isAdmin : [...keysOfRole(index)].every((k) => managerKeys.has(k)));
        const sees = (index: number) => {
          // A platform role: seen at the root; the admin role is also seen by its holders wherever they are.
          if (index === -1) return w.managerOrg === -1 || isAdmin;
          const owner = (w.roles[index] as RoleSpec).org;
          return owner === null ? w.managerOrg === -1 : scope.has(owner);
        };
        // Where a role may be held: a platform role anywhere, another only in its owner's subtree.
        const holdable = (index: number, node: number) => {
          const owner = index === -1 ? null : (w.roles[index] as RoleSpec).org;
          return owner === null || subtree(w.parents, owner).has(node);
        };
        // A new organisation under `node` is in the subtree of `node` and of everything above it, and of nothing else.
        const holdableUnder = holdable;
        const candidates = [-1, ...w.roles.keys()];
        const expected = new Set([...candidates.filter((r) => sees(r) && covers(r) && holdableUnder(r, w.managerOrg)).map(roleOf), managerRoleId]);

        const offered = await call<{ id: number }[]>('GET', '/org/loginRoles');
        expect(offered.code).toBe(20000);
        // Only this run's roles count: the platform root also sees earlier runs' platform roles.
        const ours = new Set([adminRoleId, managerRoleId, ...roleIds]);
        expect(new Set(offered.data.map((r) => r.id).filter((id) => ours.has(id)))).toEqual(expected);

        const reached: number[] = [];
        const scopeNodes = [...scope];
        const under = w.managerOrg === -1 && w.addUnder % (scopeNodes.length + 1) === 0 ? -1 : (scopeNodes[w.addUnder % scopeNodes.length] as number);
        for (const index of candidates) {
          const account = `${tag}n${index + 1}`;
          const res = await call<{ accountId: number }>('POST', '/org/add', {
            name: `${tag}-new${index + 1}`,
            account,
            password: randomBytes(32).toString('hex'),
            parentId: orgOf(under),
            roleId: roleOf(index),
          });
          expect(res.code, `add under node ${under} with role ${index}`).toBe(sees(index) && covers(index) && holdableUnder(index, under) ? 20000 : 40003);
          if (res.code === 20000) reached.push(res.data.accountId);
        }
        for (const node of scope) {
          if (node === w.managerOrg) continue;
          const res = await call('POST', '/org/restpassword', { id: orgOf(node), password: randomBytes(32).toString('hex') });
          const login = w.logins[node] as number;
          expect(res.code, `reset the login of node ${node} (role ${login})`).toBe(covers(login) ? 20000 : 40003);
          if (res.code === 20000) {
            reached.push((await db.selectFrom('organisations').select('login_account_id').where('id', '=', orgOf(node)).executeTakeFirstOrThrow()).login_account_id as number);
          }
        }
        for (const accountId of reached) {
          const keys = await keysOf(accountId);
          expect([...keys].filter((k) => !managerKeys.has(k)), `account ${accountId} holds keys the manager lacks`).toEqual([]);
        }
        // Editing a role: its own, granting nothing it lacks, and held by no account outside its scope (the
        // logins above may hold a role outside its owner's subtree: data from before the ownership rule).
        const inScope = (node: number) => w.managerOrg === -1 || scope.has(node);
        for (const [index, spec] of w.roles.entries()) {
          const owned = spec.org === null ? w.managerOrg === -1 : inScope(spec.org);
          const heldOutside = w.logins.some((login, node) => login === index && !inScope(node));
          const res = await call('POST', '/permit/updateRole', { id: roleOf(index), name: `${tag}-role${index}`, summary: 'edited', permissionList: [...keysOfRole(index)] });
          expect(res.code, `edit role ${index} (owner ${spec.org}, held outside: ${heldOutside})`).toBe(owned && covers(index) && !heldOutside ? 20000 : 40003);
        }
      }),
      { numRuns: 20 },
    );
  });
});
