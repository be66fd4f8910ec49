import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SavedView } from '../../protocol/api/groups.ts';
import { type Client, client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { injectTestServer, loginAs, loginAsAdmin, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

/** Saved views of the device list (issue 23): by name, private or shared in the organisation, changed only by their author. */
describe.each(targets)('saved device-list views on $name', (target) => {
  let ts: TestServer;
  let admin: Client;
  let colleague: Client;
  let branch: Client;

  beforeAll(async () => {
    if (!target.available) return;
    ts = await injectTestServer(target.name);
    const login = await loginAsAdmin(ts);
    admin = client(ts, login.token);
    const roleId = await createRole(admin, 'View users', ['device_list']);
    await createAccount(admin, 'viewmate', 'Viewmate_pw1', roleId);
    colleague = client(ts, (await loginAs(ts, 'viewmate', 'Viewmate_pw1')).token);
    await createOrg(admin, { name: 'View branch', account: 'viewbranch', password: 'Branch_pw1', parentId: login.orgId });
    branch = client(ts, (await loginAs(ts, 'viewbranch', 'Branch_pw1')).token);
  }, 60_000);
  afterAll(async () => ts?.stop());

  it.runIf(target.available)('runs without a socket, through app.inject(); SQLite held in memory, PostgreSQL in its own schema: no database file', () => {
    expect(ts.server.url).toMatch(/^inject:\/\//);
    expect(fs.existsSync(path.join(ts.config.dataDir, 'control-center.sqlite'))).toBe(false);
  });

  const state = { filters: { model: 'P10', onlineState: 1 }, columns: ['model', 'onlineState', 'battery'], sortField: 'battery', sortOrder: 'asc' };
  const names = async (c: Client) => (await c.ok<SavedView[]>('POST', '/saved-view/list')).map((v) => v.name);

  it.runIf(target.available)('a private view is its author alone; a shared one reaches the organisation and those above, not below', async () => {
    const mine = await admin.ok<SavedView>('POST', '/saved-view/save', { name: 'Low battery', shared: false, state });
    expect(mine).toMatchObject({ name: 'Low battery', shared: false, mine: true, state });
    const shared = await admin.ok<SavedView>('POST', '/saved-view/save', { name: 'Online P10', shared: true, state });
    expect(await names(admin)).toEqual(['Low battery', 'Online P10']);
    expect(await names(colleague)).toEqual(['Online P10']);
    expect(await names(branch)).toEqual([]);
    // Only the author changes or deletes it.
    expect((await colleague.call('POST', '/saved-view/save', { id: shared.id, name: 'Mine now', shared: true, state })).message).toBe('The saved view does not exist');
    expect((await colleague.call('DELETE', `/saved-view/${shared.id}`)).message).toBe('The saved view does not exist');
    // Names are unique per account; the colleague may use the same name for its own.
    expect((await admin.call('POST', '/saved-view/save', { name: 'Online P10', shared: false, state })).message).toBe('You already have a view with this name');
    await colleague.ok('POST', '/saved-view/save', { name: 'Online P10', shared: false, state });
    const renamed = await admin.ok<SavedView>('POST', '/saved-view/save', { id: mine.id, name: 'Low battery P10', shared: true, state: { ...state, sortOrder: 'desc' } });
    expect(renamed).toMatchObject({ id: mine.id, shared: true, state: { sortOrder: 'desc' } });
    await admin.ok('DELETE', `/saved-view/${shared.id}`);
    expect(await names(colleague)).toEqual(['Low battery P10', 'Online P10']);
    // A view holds only the list's known filters and sort fields.
    expect((await admin.call('POST', '/saved-view/save', { name: 'Bad', shared: false, state: { ...state, filters: { owner: 'x' } } })).code).toBe(40001);
    expect((await admin.call('POST', '/saved-view/save', { name: 'Bad', shared: false, state: { ...state, sortField: 'secret_hash' } })).code).toBe(40001);
  });
});
