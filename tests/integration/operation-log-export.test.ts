import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readXlsx } from '../../server/reports/export.ts';
import { type Client, client, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { fetchFrom, injectTestServer, loginAsAdmin, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

interface Entry {
  account: string;
  method: string;
  path: string;
  target: string;
  code: number;
  orgId: number | null;
}

for (const target of targets) {
  describe.skipIf(!target.available)(`operation log filters and export (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let token: string;
    let rootOrg: number;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      const login = await loginAsAdmin(ts);
      token = login.token;
      rootOrg = login.orgId;
      admin = client(ts, token);
    });
    afterAll(async () => ts?.stop());

    it('filters by organisation, action, method and target, and exports exactly the filtered rows', async () => {
      const roleIds = [await createRole(admin, `audit-a-${target.name}`, ['report_manganer']), await createRole(admin, `audit-b-${target.name}`, ['report_manganer'])];
      const filter = { path: '/permit/addRole', method: 'POST', orgId: rootOrg };
      const page = await vi.waitFor(async () => {
        const p = await admin.ok<{ total: number; list: Entry[] }>('POST', '/operation-log/list', { pageNum: 1, pageSize: 100, ...filter });
        if (p.total < 2) throw new Error('not recorded yet');
        return p;
      }, { timeout: 10_000 });
      expect(page.list.every((e) => e.path === '/permit/addRole' && e.method === 'POST' && e.orgId === rootOrg)).toBe(true);
      const csvRes = await fetchFrom(ts.server.url, `/operation-log/export?format=csv&path=%2Fpermit%2FaddRole&method=POST&orgId=${rootOrg}`, { headers: { 'X-Token': token } });
      expect(csvRes.headers.get('content-disposition')).toMatch(/system-operation-log-\d{8}\.csv/);
      const lines = (await csvRes.text()).replace(/^\uFEFF/, '').trim().split('\r\n');
      expect(lines[0]).toBe('Time,Account,Organisation,Action,Target,Target ID,Route,Result code,IP');
      expect(lines).toHaveLength(page.total + 1);
      // The action by its name and the target by its name, the route beside them.
      expect(lines.slice(1).every((l) => /,Add role,audit-[ab]-\w+,,POST \/permit\/addRole,/.test(l))).toBe(true);

      const res = await fetchFrom(ts.server.url, `/operation-log/export?format=xlsx&lang=1&path=%2Fpermit%2FaddRole`, { headers: { 'X-Token': token } });
      const sheet = await readXlsx(Buffer.from(await res.arrayBuffer()));
      expect(sheet[0]).toEqual(['时间', '账号', '组织', '操作', '对象', '对象 ID', '接口', '结果码', 'IP']);
      expect(sheet.slice(1).map((r) => r[3])).toEqual(page.list.map(() => '新增角色'));
      expect(sheet.slice(1).map((r) => r[6])).toEqual(page.list.map((e) => `${e.method} ${e.path}`));
      void roleIds;
    });

    it('refuses an organisation outside the caller scope and an unknown format', async () => {
      expect((await admin.call('POST', '/operation-log/list', { pageNum: 1, pageSize: 10, orgId: 999_999 })).code).toBe(40003);
      const res = await fetchFrom(ts.server.url, `/operation-log/export?format=pdf`, { headers: { 'X-Token': token } });
      expect(await res.json()).toMatchObject({ code: 40001, message: expect.stringContaining('Format') });
    });
  });
}
