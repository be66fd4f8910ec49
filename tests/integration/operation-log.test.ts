import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clientPasswordHash } from '../../server/seed.ts';
import { type Client, client, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { fetchFrom, injectTestServer, loginAs, loginAsAdmin, type TestServer, tryLogin } from '../support/server.ts';

const targets = await dbTargets();

interface Entry {
  id: number;
  accountId: number | null;
  account: string;
  orgId: number | null;
  method: string;
  path: string;
  target: string;
  code: number;
  ip: string;
  createTime: number;
  targetName: string;
}
type Page = { total: number; list: Entry[] };

let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}`;

for (const target of targets) {
  describe.skipIf(!target.available)(`operation log (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let rootOrg: number;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      const login = await loginAsAdmin(ts);
      admin = client(ts, login.token);
      rootOrg = login.orgId;
    });
    afterAll(async () => ts?.stop());

    const list = (c: Client, body: Record<string, unknown>) => c.ok<Page>('POST', '/operation-log/list', { pageNum: 1, pageSize: 100, ...body });
    /** The log is written after the answer is sent, so a reader may briefly be ahead of it. */
    const waitForList = (c: Client, body: Record<string, unknown>, until: (p: Page) => boolean) =>
      vi.waitFor(async () => {
        const page = await list(c, body);
        if (!until(page)) throw new Error('not yet recorded');
        return page;
      }, { timeout: 10_000 });

    it('records an organisation being created and frozen, with who, target and code', async () => {
      const since = Date.now();
      const orgId = await createOrg(admin, { name: unique('Logged '), account: unique('logged'), password: 'Logged_pw1', parentId: rootOrg });
      await admin.ok('POST', '/org/freeze', { id: orgId, freezeState: 2 });

      const freezes = await waitForList(admin, { path: '/org/freeze', startTime: since }, (p) => p.total >= 1);
      expect(freezes.list[0]).toMatchObject({ account: 'admin', orgId: rootOrg, method: 'POST', path: '/org/freeze', target: String(orgId), code: 20000 });
      expect(freezes.list[0]?.ip).not.toBe('');
      const adds = await waitForList(admin, { path: '/org/add', startTime: since }, (p) => p.total >= 1);
      expect(adds.list[0]).toMatchObject({ account: 'admin', path: '/org/add', target: '', code: 20000 });

      // Newest first: the freeze came after the add.
      const both = await list(admin, { startTime: since, account: 'admin' });
      const paths = both.list.map((e) => e.path);
      expect(paths.indexOf('/org/freeze')).toBeLessThan(paths.indexOf('/org/add'));
      // Time filters: nothing before `since` matches a window ending before it.
      const before = await list(admin, { path: '/org/freeze', endTime: since - 1 });
      expect(before.list.some((e) => e.target === String(orgId))).toBe(false);
      // Paging.
      const page = await admin.ok<Page>('POST', '/operation-log/list', { pageNum: 1, pageSize: 10, startTime: since });
      expect(page.list.length).toBeLessThanOrEqual(10);
      expect(page.total).toBeGreaterThanOrEqual(2);
    });

    it("names the target as it was (a deleted role keeps its name), skips read-only lists, and keeps a refused caller's account", async () => {
      const since = Date.now();
      const roleName = unique('doomed_');
      const roleId = await createRole(admin, roleName, ['home_list']);
      await admin.ok('DELETE', `/permit/delRole/${roleId}`);
      const dels = await waitForList(admin, { path: '/permit/delRole/:id', startTime: since }, (p) => p.total >= 1);
      expect(dels.list[0]).toMatchObject({ method: 'DELETE', target: String(roleId), targetName: roleName, code: 20000 });
      const adds = await waitForList(admin, { path: '/permit/addRole', startTime: since }, (p) => p.total >= 1);
      expect(adds.list[0]).toMatchObject({ targetName: roleName });

      // Read-only POSTs are not recorded.
      await admin.ok('POST', '/permit/getRoleList', { pageNum: 1, pageSize: 10 });
      await admin.ok('POST', '/org/list', { pageNum: 1, pageSize: 10 });
      await admin.ok('POST', '/device/list', { pageNum: 1, pageSize: 10 });

      // Refused for a missing key: recorded with the account that tried.
      const weak = await createRole(admin, unique('weak_'), ['home_list']);
      const account = unique('weakling');
      await createOrg(admin, { name: unique('Weak '), account, password: 'Weak_pw1', parentId: rootOrg, roleId: weak });
      const weakling = client(ts, (await loginAs(ts, account, 'Weak_pw1')).token);
      expect((await weakling.call('POST', '/permit/addRole', { name: 'x', permissionList: [] })).code).toBe(40003);
      const refused = await waitForList(admin, { account, path: '/permit/addRole', startTime: since }, (p) => p.total >= 1);
      expect(refused.list[0]).toMatchObject({ account, code: 40003 });

      const all = await list(admin, { startTime: since });
      expect(all.list.some((e) => ['/permit/getRoleList', '/org/list', '/device/list'].includes(e.path))).toBe(false);
    });

    it('records a failed login with its code and never the password', async () => {
      const since = Date.now();
      const account = unique('nobody');
      const res = await tryLogin(ts, account, 'Secret_pw9');
      expect(res.code).toBe(40002);
      const page = await waitForList(admin, { path: '/login/userLogin', account, startTime: since }, (p) => p.total >= 1);
      // The body's id is the captcha challenge: no target of the call, so none is recorded.
      expect(page.list[0]).toMatchObject({ account, accountId: null, orgId: null, method: 'POST', code: 40002, target: '' });
      const rows = await ts.server.db.selectFrom('operation_log').selectAll().execute();
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain('Secret_pw9');
      expect(stored).not.toContain(clientPasswordHash('Secret_pw9'));
    });

    it('scopes the log to the caller organisation and needs report_operation_log', async () => {
      const since = Date.now();
      const reader = await createRole(admin, unique('logreader'), ['report_manganer', 'report_operation_log']);
      const account = unique('child');
      const childOrg = await createOrg(admin, { name: unique('Child '), account, password: 'Child_pw1', parentId: rootOrg, roleId: reader });
      const child = client(ts, (await loginAs(ts, account, 'Child_pw1')).token);
      await admin.ok('POST', '/org/freeze', { id: childOrg, freezeState: 1 });
      await waitForList(admin, { path: '/org/freeze', startTime: since }, (p) => p.total >= 1);

      // The child's own call (its first list) is recorded under its organisation; the admin's are not visible.
      const seen = await waitForList(child, { startTime: since }, (p) => p.total >= 1);
      expect(seen.list.every((e) => e.orgId === childOrg)).toBe(true);
      expect(seen.list.some((e) => e.account === 'admin')).toBe(false);
      expect(seen.list.some((e) => e.path === '/login/userLogin')).toBe(true);

      const noLog = await createRole(admin, unique('nolog'), ['report_manganer', 'report_abnormal']);
      const other = unique('other');
      await createOrg(admin, { name: unique('Other '), account: other, password: 'Other_pw1', parentId: rootOrg, roleId: noLog });
      const denied = client(ts, (await loginAs(ts, other, 'Other_pw1')).token);
      const res = await denied.call('POST', '/operation-log/list', { pageNum: 1, pageSize: 10 });
      expect(res.code).toBe(40003);
    });

    it("shows failed logins (no organisation) to the platform only, not to a customer organisation's admin role", async () => {
      const since = Date.now();
      const stranger = unique('strangerlogin');
      expect((await tryLogin(ts, stranger, 'Wrong_pw1')).code).toBe(40002);
      // The platform's admin sees it...
      await waitForList(admin, { path: '/login/userLogin', account: stranger, startTime: since }, (p) => p.total >= 1);
      // ...a customer organisation whose login account holds the admin role does not, in the list or the export.
      const account = unique('custadmin');
      const customer = await createOrg(admin, { name: unique('Customer '), account, password: 'Cust_pw1', parentId: rootOrg });
      const login = await loginAs(ts, account, 'Cust_pw1');
      const custAdmin = client(ts, login.token);
      const seen = await waitForList(custAdmin, { startTime: since }, (p) => p.total >= 1);
      expect(seen.list.every((e) => e.orgId === customer)).toBe(true);
      expect((await list(custAdmin, { account: stranger })).total).toBe(0);
      const csv = await fetchFrom(ts.server.url, `/operation-log/export?format=csv&account=${stranger}`, { headers: { 'X-Token': login.token } });
      expect(csv.status).toBe(200);
      expect(await csv.text()).not.toContain(stranger);
    });
  });
}
