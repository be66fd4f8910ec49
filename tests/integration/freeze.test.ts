import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_FROZEN } from '../../server/auth/routes.ts';
import { client, createOrg } from '../support/console-api.ts';
import { api, loginAs, loginAsAdmin, injectTestServer, type TestServer, tryLogin } from '../support/server.ts';

describe('organisation freeze', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await injectTestServer('sqlite');
  });
  afterAll(async () => ts?.stop());

  it('a frozen organisation and its children cannot log in, and their sessions stop at once; unfreezing restores them', async () => {
    const admin = client(ts, (await loginAsAdmin(ts)).token);
    const parent = await createOrg(admin, { name: 'Frozen Parent', account: 'frozenparent', password: 'Parent_pw1' });
    await createOrg(admin, { name: 'Frozen Child', account: 'frozenchild', password: 'Child_pw1', parentId: parent });
    const child = await loginAs(ts, 'frozenchild', 'Child_pw1');

    await admin.ok('POST', '/org/freeze', { id: parent, freezeState: 2 });
    expect((await api(ts.server.url, 'GET', '/home/getAccountDetail', { token: child.token })).code).toBe(3);
    expect((await tryLogin(ts, 'frozenchild', 'Child_pw1')).message).toBe(ORG_FROZEN);
    expect((await tryLogin(ts, 'frozenparent', 'Parent_pw1')).message).toBe(ORG_FROZEN);

    await admin.ok('POST', '/org/freeze', { id: parent, freezeState: 1 });
    expect((await api(ts.server.url, 'GET', '/home/getAccountDetail', { token: child.token })).code).toBe(20000);
    expect((await tryLogin(ts, 'frozenchild', 'Child_pw1')).code).toBe(20000);
  });
});
