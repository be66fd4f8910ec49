import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, fetchFrom, injectTestServer, type TestServer } from '../support/server.ts';

/** Every call of platform-core section 7, as the spec writes it. */
const SPEC_CALLS = `
POST /login/userLogin
GET /home/getAccountDetail
GET /home/logout
GET /org/authorizationPassword/{password}
POST /org/list
DELETE /org/del
POST /org/freeze
POST /org/add
POST /org/update
GET /org/getOrg/{orgId}
POST /org/restpassword
GET /org/report/{id}
GET /org/allOnline
GET /org/kitoutUser/{accountId}
GET /permit/getAllPermits
POST /permit/getRoleList
GET /permit/getAllRole
POST /permit/addRole
POST /permit/updateRole
DELETE /permit/delRole/{id}
GET /permit/getPermitsByRole/{id}
POST /permit/getAdminList
POST /permit/addAccount
POST /permit/updateAccount
DELETE /permit/delAccount/{id}
POST /permit/update-self-password
GET /notice/page
DELETE /notice/delete
DELETE /notice/delete-all
GET /notice/detail/{id}
POST /notice/read
GET /notice/read-all
GET /notice/unreadNoticeCount
GET /archives-category/first-and-second-tree
GET /archives-document/list/{id}
GET /archives-document/detail/{id}
POST /common/modify-language`
  .trim()
  .split('\n')
  .map((line) => line.split(' ') as [string, string]);

// Parameter names are the server's own; compare paths with every {param} made anonymous.
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

describe('OpenAPI document', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await injectTestServer('sqlite');
  });
  afterAll(async () => ts?.stop());

  it('lists every call of platform-core section 7 with its method, and none of the console pages', async () => {
    const res = await fetchFrom(ts.server.url, `/openapi.json`);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\./);
    const published = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${shape(path)}`)));
    const missing = SPEC_CALLS.filter(([method, path]) => !published.has(`${method} ${shape(path)}`));
    expect(missing).toEqual([]);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/user'))).toBe(false);
    expect(published.has('POST /device/list')).toBe(true);
  });

  it('is public (no token needed)', async () => {
    const res = await api<unknown>(ts.server.url, 'GET', '/openapi.json');
    expect(res).toHaveProperty('paths');
  });
});
