import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../../server/auth/sessions.ts';
import { api, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Tenancy as a property: for arbitrary organisation trees and an arbitrary caller organisation, the
 * organisation calls reach exactly the caller's subtree. Trees, the caller's account and its session are
 * written straight to the database (the API's own paths are tested elsewhere), then every call is made
 * over HTTP.
 */
describe('tenancy property', () => {
  let ts: TestServer;
  let roleId = 0;
  let run = 0;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const role = await ts.server.db.insertInto('roles').values({ name: 'org-manager', summary: '', created_by: null }).returning('id').executeTakeFirstOrThrow();
    roleId = role.id;
    await ts.server.db.insertInto('role_permissions').values([{ role_id: roleId, permission: 'org_list' }, { role_id: roleId, permission: 'home_list' }]).execute();
  });
  afterAll(async () => ts?.stop());

  // A tree as a parent index per node: node i (i >= 1) hangs under some node before it.
  const treeArb = fc.integer({ min: 2, max: 7 }).chain((n) => fc.tuple(...Array.from({ length: n - 1 }, (_, i) => fc.nat({ max: i }))));

  it('no list, detail or mutation reaches an organisation outside the caller subtree', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb, fc.nat(), async (parents, pick) => {
        const db = ts.server.db;
        const now = Date.now();
        const tag = `p${run++}`;
        const root = await db.selectFrom('organisations').select('id').where('parent_id', 'is', null).executeTakeFirstOrThrow();
        // Node 0 hangs under the platform root; node i under node parents[i-1].
        const ids: number[] = [];
        for (let i = 0; i <= parents.length; i++) {
          const parentId = i === 0 ? root.id : (ids[parents[i - 1] ?? 0] as number);
          const row = await db
            .insertInto('organisations')
            .values({ parent_id: parentId, name: `${tag}-${i}`, enroll_key: randomBytes(12).toString('hex'), created_at: now })
            .returning('id')
            .executeTakeFirstOrThrow();
          ids.push(row.id);
        }
        const callerIndex = pick % ids.length;
        const callerOrg = ids[callerIndex] as number;
        const account = await db
          .insertInto('accounts')
          .values({ org_id: callerOrg, role_id: roleId, account: `t${tag}`, nickname: '', password_hash: 'x', update_password_last_time: now, expire_time: null, created_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        const token = randomBytes(24).toString('hex');
        await db.insertInto('sessions').values({ token_hash: tokenDigest(token), account_id: account.id, created_at: now, expires_at: now + 3_600_000 }).execute();

        // The caller's subtree, computed from the generated shape.
        const inScope = new Set([callerIndex]);
        for (let i = 1; i <= parents.length; i++) if (inScope.has(parents[i - 1] ?? -1)) inScope.add(i);
        const scopeIds = new Set([...inScope].map((i) => ids[i]));

        const listed = await api<{ list: { id: number; name: string }[] }>(ts.server.url, 'POST', '/org/list', { token, body: { pageNum: 1, pageSize: 100, name: `${tag}-` } });
        expect(new Set(listed.data.list.map((o) => o.id))).toEqual(scopeIds);
        for (const [i, id] of ids.entries()) {
          const detail = await api(ts.server.url, 'GET', `/org/getOrg/${id}`, { token });
          expect(detail.code).toBe(inScope.has(i) ? 20000 : 40003);
          // Freezing is allowed strictly below the caller's own organisation, never outside its subtree.
          const freeze = await api(ts.server.url, 'POST', '/org/freeze', { token, body: { id, freezeState: 1 } });
          if (!inScope.has(i)) expect(freeze.code).toBe(40003);
          else if (i !== callerIndex) expect(freeze.code).toBe(20000);
        }
      }),
      { numRuns: 40 },
    );
  });
});
