import { filter, firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wsTransport } from '../../agent/ws-transport.ts';
import { CloseCode, OnlineState, ProtocolEngine } from '../../protocol/index.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { adminRoleId, type Client, client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { injectTestServer, loginAs, loginAsAdmin, startTestServer, TEST_ADMIN_PASSWORD, type TestServer, tryLogin } from '../support/server.ts';

const targets = await dbTargets();

const DENIED = { code: 40003, message: 'Permission denied or Session expire' };
const LIMIT_MESSAGE = 'Limited new organizational structure,Please contact the administrator';

interface OrgView {
  id: number;
  parentId: number | null;
  name: string;
  alias: string;
  account: string;
  email: string;
  phone: string;
  remark: string;
  contactPerson: string;
  freezeState: number;
  expireTime: number | null;
  total: number;
  online: number;
  offline: number;
  enrollKey?: string;
}
type Page<T> = { total: number; list: T[] };

let serial = 0;
/** Unique names per test, as every test of a file shares one server. */
const unique = (prefix: string) => `${prefix}${++serial}`;

async function addDevice(ts: TestServer, orgId: number, online: boolean): Promise<void> {
  await ts.server.db
    .insertInto('devices')
    .values({
      sn: unique('SN-'),
      org_id: orgId,
      secret_hash: 'x',
      model: 'm',
      system_type: 'android',
      system_version: '',
      image_version: '',
      online_state: online ? OnlineState.Online : OnlineState.Offline,
      created_at: Date.now(),
    })
    .execute();
}

for (const target of targets) {
  describe.skipIf(!target.available)(`organisations (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let platformId: number;

    // REST only, through inject() (SQLite in memory); the console socket's kick-out has its own listening server below.
    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      const login = await loginAsAdmin(ts);
      admin = client(ts, login.token);
      platformId = login.orgId;
    });
    afterAll(async () => ts?.stop());

    /** An organisation under `parentId` with a login account, and a client logged in as that account. */
    async function orgWithLogin(parentId: number, roleId?: number): Promise<{ id: number; account: string; c: Client; accountId: number }> {
      const account = unique('owner');
      const id = await createOrg(admin, { name: unique('Org '), account, password: 'Owner_pw1', parentId, ...(roleId ? { roleId } : {}) });
      const login = await loginAs(ts, account, 'Owner_pw1');
      return { id, account, c: client(ts, login.token), accountId: login.accountId };
    }

    it('adds an organisation with a login account and lists it with every field', async () => {
      const account = unique('acme');
      const id = await createOrg(admin, { name: 'Acme Ltd', account, password: 'Acme_pw1' });
      const updated = await admin.ok<OrgView>('POST', '/org/update', {
        id,
        alias: 'ACME',
        email: 'ops@acme.example',
        phone: '13800000000',
        remark: 'first customer',
        contactPerson: 'Wile E.',
        expireTime: 1_900_000_000_000,
      });
      expect(updated).toMatchObject({ id, parentId: platformId, name: 'Acme Ltd', alias: 'ACME', account, freezeState: 1, expireTime: 1_900_000_000_000 });
      const page = await admin.ok<Page<OrgView>>('POST', '/org/list', { pageNum: 1, pageSize: 10, name: 'acme' });
      expect(page.total).toBe(1);
      expect(page.list[0]).toMatchObject({
        id,
        parentId: platformId,
        name: 'Acme Ltd',
        alias: 'ACME',
        account,
        email: 'ops@acme.example',
        phone: '13800000000',
        remark: 'first customer',
        contactPerson: 'Wile E.',
        freezeState: 1,
        expireTime: 1_900_000_000_000,
        total: 0,
        online: 0,
        offline: 0,
      });
      const detail = await admin.ok<OrgView>('GET', `/org/getOrg/${id}`);
      expect(detail.enrollKey).toMatch(/^[\w-]{32}$/);
      // The login account is real: it logs in, into its organisation, with the organisation's expiry.
      const login = await loginAs(ts, account, 'Acme_pw1');
      const me = await client(ts, login.token).ok<{ org: { id: number }; expireTime: number }>('GET', '/home/getAccountDetail');
      expect(me).toMatchObject({ org: { id }, expireTime: 1_900_000_000_000 });
    });

    it('counts devices per subtree in the list and the report (a parent counts its children), and online in scope', async () => {
      const parent = await createOrg(admin, { name: unique('Counted '), account: unique('counted'), password: 'Count_pw1' });
      const child = await createOrg(admin, { name: unique('Counted child '), account: unique('cchild'), password: 'Count_pw1', parentId: parent });
      await addDevice(ts, parent, true);
      await addDevice(ts, parent, false);
      await addDevice(ts, child, true);
      const page = await admin.ok<Page<OrgView>>('POST', '/org/list', { pageSize: 100 });
      expect(page.list.find((o) => o.id === parent)).toMatchObject({ total: 3, online: 2, offline: 1 });
      expect(page.list.find((o) => o.id === child)).toMatchObject({ total: 1, online: 1, offline: 0 });
      expect(await admin.ok('GET', `/org/report/${parent}`)).toEqual({ total: 3, online: 2, offline: 1 });
      expect(await admin.ok('GET', '/org/allOnline')).toBeGreaterThanOrEqual(2);
    });

    it('sorts the list by name either way when asked, newest first otherwise', async () => {
      const prefix = unique('Sorted ');
      for (const letter of ['b', 'a', 'c']) await createOrg(admin, { name: `${prefix}${letter}`, account: unique('sorted'), password: 'Sorted_pw1' });
      const names = async (body: object) => (await admin.ok<Page<OrgView>>('POST', '/org/list', { pageSize: 100, name: prefix, ...body })).list.map((o) => o.name.slice(-1));
      expect(await names({})).toEqual(['c', 'a', 'b']);
      expect(await names({ orderBy: 'name', order: 'asc' })).toEqual(['a', 'b', 'c']);
      expect(await names({ orderBy: 'name', order: 'desc' })).toEqual(['c', 'b', 'a']);
      expect(await admin.call('POST', '/org/list', { orderBy: 'password' })).toMatchObject({ code: 40001 });
    });

    it('stores the public key and the login account\'s customer role', async () => {
      const id = await createOrg(admin, { name: unique('Keyed '), account: unique('keyed'), password: 'Keyed_pw1' });
      const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG9l example';
      await admin.ok('POST', '/org/update', { id, publicKey: key, customerType: 1 });
      expect(await admin.ok('GET', `/org/getOrg/${id}`)).toMatchObject({ publicKey: key, customerType: 1 });
      expect(await admin.call('POST', '/org/update', { id, publicKey: '公钥' })).toMatchObject({ code: 40001 });
    });

    it('pages the list newest first', async () => {
      for (let i = 0; i < 3; i++) await createOrg(admin, { name: unique('Paged '), account: unique('paged'), password: 'Paged_pw1' });
      const all = await admin.ok<Page<OrgView>>('POST', '/org/list', { pageSize: 100 });
      const first = await admin.ok<Page<OrgView>>('POST', '/org/list', { pageNum: 1, pageSize: 10 });
      const second = await admin.ok<Page<OrgView>>('POST', '/org/list', { pageNum: 2, pageSize: 10 });
      expect(first.total).toBe(all.total);
      expect(first.list.map((o) => o.id)).toEqual(all.list.slice(0, 10).map((o) => o.id));
      expect(second.list.map((o) => o.id)).toEqual(all.list.slice(10, 20).map((o) => o.id));
      expect(all.list.map((o) => o.id)).toEqual([...all.list.map((o) => o.id)].sort((a, b) => b - a));
    });

    it('validates bodies, naming the field, and refuses emoji and empty names', async () => {
      const body = { name: 'Valid', account: unique('valid'), password: clientPasswordHash('Valid_pw1'), roleId: await adminRoleId(admin) };
      expect(await admin.call('POST', '/org/add', { ...body, colour: 'red' })).toMatchObject({ code: 40001, message: expect.stringContaining('colour') });
      expect(await admin.call('POST', '/org/add', { ...body, name: 'x'.repeat(129) })).toMatchObject({ code: 40001, message: 'Name: length should be at most 128 characters' });
      expect(await admin.call('POST', '/org/add', { ...body, parentId: '1' })).toMatchObject({ code: 40001, message: 'Parent: Please enter numeric value' });
      expect(await admin.call('POST', '/org/add', { ...body, password: 'plain' })).toMatchObject({ code: 40001, message: 'Password incorrect' });
      expect(await admin.call('POST', '/org/add', { ...body, name: 'Rocket 🚀' })).toMatchObject({ code: 40001, message: 'Name cannot contain emoji!' });
      expect(await admin.call('POST', '/org/add', { ...body, name: '   ' })).toMatchObject({ code: 40001, message: 'Name cannot be empty!' });
      expect(await admin.call('POST', '/org/add', { ...body, account: '1abc' })).toMatchObject({ code: 40001, message: expect.stringContaining('Account must') });
      expect(await admin.call('POST', '/org/add', { ...body, account: 'admin' })).toMatchObject({ code: 40001, message: 'Account Already Exists' });
      expect(await admin.call('POST', '/org/freeze', { id: platformId, freezeState: 3 })).toMatchObject({ code: 40001, message: 'Freeze state: Choose one of the listed options' });
      expect(await admin.call('GET', '/org/getOrg/abc')).toMatchObject({ code: 40001, message: 'Organization: Please enter a positive integer' });
    });

    it('freezes and unfreezes an organisation below the caller, never its own', async () => {
      const id = await createOrg(admin, { name: unique('Frozen '), account: unique('frozen'), password: 'Frozen_pw1' });
      await admin.ok('POST', '/org/freeze', { id, freezeState: 2 });
      expect(await admin.ok<OrgView>('GET', `/org/getOrg/${id}`)).toMatchObject({ freezeState: 2 });
      await admin.ok('POST', '/org/freeze', { id, freezeState: 1 });
      expect(await admin.ok<OrgView>('GET', `/org/getOrg/${id}`)).toMatchObject({ freezeState: 1 });
      expect(await admin.call('POST', '/org/freeze', { id: platformId, freezeState: 2 })).toMatchObject({ code: 40003 });
    });

    it('refuses deleting an organisation with children, devices or accounts, or the own one', async () => {
      const parent = await orgWithLogin(platformId);
      const child = await createOrg(admin, { name: unique('Child '), account: unique('child'), password: 'Child_pw1', parentId: parent.id });
      const del = (id: number, c = admin) => c.call('DELETE', '/org/del', { id });
      expect(await del(parent.id)).toMatchObject({ code: 40001, message: 'The organisation still has child organisations: delete them first' });
      await addDevice(ts, child, false);
      expect(await del(child)).toMatchObject({ code: 40001, message: 'The organisation still has devices: move or remove them first' });
      await ts.server.db.deleteFrom('devices').where('org_id', '=', child).execute();
      // An account added by the child's own login is a dependent; the login account itself is not.
      const childLogin = await loginAs(ts, (await admin.ok<OrgView>('GET', `/org/getOrg/${child}`)).account, 'Child_pw1');
      const childClient = client(ts, childLogin.token);
      const roleId = (await childClient.ok<{ id: number; name: string }[]>('GET', '/permit/getAllRole'))[0]?.id ?? 0;
      const extra = await createAccount(childClient, unique('extra'), 'Extra_pw1', roleId);
      expect(await del(child)).toMatchObject({ code: 40001, message: 'The organisation still has accounts: delete them first' });
      await ts.server.db.deleteFrom('accounts').where('id', '=', extra).execute();
      expect(await del(parent.id, parent.c)).toMatchObject({ code: 40003, message: 'Your own organisation can only be changed by the organisation above it' });
      expect(await del(platformId)).toMatchObject({ code: 40003 });
      expect(await del(child)).toMatchObject({ code: 20000 });
      // Its login account went with it, and so did that account's session.
      expect(await childClient.call('GET', '/home/getAccountDetail')).toMatchObject({ code: 3 });
      expect(await admin.call('GET', `/org/getOrg/${child}`)).toMatchObject(DENIED);
      expect(await del(parent.id)).toMatchObject({ code: 20000 });
    });

    it("resets an organisation's login password, ending the sessions opened with the old one", async () => {
      const org = await orgWithLogin(platformId);
      await admin.ok('POST', '/org/restpassword', { id: org.id, password: clientPasswordHash('Reset_pw2') });
      expect(await org.c.call('GET', '/home/getAccountDetail')).toMatchObject({ code: 3 });
      expect((await tryLogin(ts, org.account, 'Owner_pw1')).code).toBe(40002);
      expect((await tryLogin(ts, org.account, 'Reset_pw2')).code).toBe(20000);
      expect(await admin.call('POST', '/org/restpassword', { id: platformId, password: clientPasswordHash('Reset_pw2') })).toMatchObject({ code: 40003 });
    });

    it("checks a password against the caller's own", async () => {
      expect(await admin.ok('GET', `/org/authorizationPassword/${clientPasswordHash(TEST_ADMIN_PASSWORD)}`)).toBe(true);
      expect(await admin.ok('GET', `/org/authorizationPassword/${clientPasswordHash('not_it')}`)).toBe(false);
      expect(await admin.ok('GET', '/org/authorizationPassword/plaintext')).toBe(false);
    });

    it('keeps an org admin to its own subtree: siblings and parents are out of reach', async () => {
      const mine = await orgWithLogin(platformId);
      const sibling = await orgWithLogin(platformId);
      const below = await createOrg(mine.c, { name: unique('Below '), account: unique('below'), password: 'Below_pw1' });
      const page = await mine.c.ok<Page<OrgView>>('POST', '/org/list', { pageSize: 100 });
      expect(page.list.map((o) => o.id).sort()).toEqual([mine.id, below].sort());
      for (const other of [sibling.id, platformId]) {
        expect(await mine.c.call('GET', `/org/getOrg/${other}`)).toMatchObject(DENIED);
        expect(await mine.c.call('POST', '/org/update', { id: other, name: 'Taken over' })).toMatchObject(DENIED);
        expect(await mine.c.call('POST', '/org/freeze', { id: other, freezeState: 2 })).toMatchObject(DENIED);
        expect(await mine.c.call('DELETE', '/org/del', { id: other })).toMatchObject(DENIED);
        expect(await mine.c.call('POST', '/org/restpassword', { id: other, password: clientPasswordHash('Stolen_pw1') })).toMatchObject(DENIED);
        expect(await mine.c.call('GET', `/org/report/${other}`)).toMatchObject(DENIED);
        expect(await mine.c.call('POST', '/org/add', { name: 'Cuckoo', account: unique('cuckoo'), password: clientPasswordHash('Cuckoo_pw1'), parentId: other, roleId: await adminRoleId(mine.c) })).toMatchObject(DENIED);
      }
      expect(await mine.c.call('GET', `/org/kitoutUser/${sibling.accountId}`)).toMatchObject(DENIED);
      // Its own expiry and role are set from above; its contact details are its own.
      expect(await mine.c.call('POST', '/org/update', { id: mine.id, expireTime: 4_000_000_000_000 })).toMatchObject({ code: 40003 });
      expect(await mine.c.call('POST', '/org/update', { id: mine.id, contactPerson: 'Me' })).toMatchObject({ code: 20000 });
      expect(await mine.c.call('POST', '/org/freeze', { id: mine.id, freezeState: 2 })).toMatchObject({ code: 40003 });
      // What it may do below itself, it may.
      expect(await mine.c.call('POST', '/org/freeze', { id: below, freezeState: 2 })).toMatchObject({ code: 20000 });
      expect(await sibling.c.call('GET', '/home/getAccountDetail')).toMatchObject({ code: 20000 });
    });

    it('org_list gates every /org/* call: refused without it (40003), served with it', async () => {
      const without = await createRole(admin, unique('no_org_'), ['home_list', 'device_list']);
      const withIt = await createRole(admin, unique('org_only_'), ['org_list']);
      const lackingName = unique('lacking');
      const holderName = unique('holder');
      await createAccount(admin, lackingName, 'Lacking_pw1', without);
      await createAccount(admin, holderName, 'Holder_pw1', withIt);
      const lacking = client(ts, (await loginAs(ts, lackingName, 'Lacking_pw1')).token);
      const holder = client(ts, (await loginAs(ts, holderName, 'Holder_pw1')).token);
      // The victim's login holds no key the holder lacks, so the holder may also reset its password.
      const victim = await orgWithLogin(platformId, withIt);
      const calls = (orgId: number, accountId: number): [string, string, unknown?][] => [
        ['POST', '/org/list', { pageNum: 1, pageSize: 10 }],
        ['POST', '/org/add', { name: unique('Matrix '), account: unique('matrix'), password: clientPasswordHash('Matrix_pw1'), roleId: withIt }],
        ['POST', '/org/update', { id: orgId, remark: 'seen' }],
        ['POST', '/org/freeze', { id: orgId, freezeState: 2 }],
        ['GET', `/org/getOrg/${orgId}`],
        ['POST', '/org/restpassword', { id: orgId, password: clientPasswordHash('Matrix_pw2') }],
        ['GET', `/org/report/${orgId}`],
        ['GET', '/org/allOnline'],
        ['GET', `/org/kitoutUser/${accountId}`],
        ['GET', `/org/authorizationPassword/${clientPasswordHash('Holder_pw1')}`],
        ['DELETE', '/org/del', { id: orgId }],
      ];
      for (const [method, url, body] of calls(victim.id, victim.accountId)) {
        expect(await lacking.call(method as 'GET', url, body), `${method} ${url}`).toMatchObject(DENIED);
      }
      for (const [method, url, body] of calls(victim.id, victim.accountId)) {
        expect(await holder.call(method as 'GET', url, body), `${method} ${url}`).toMatchObject({ code: 20000 });
      }
    });
  });

  describe.skipIf(!target.available)(`organisation sessions on a console socket (${target.name})`, () => {
    let ts: TestServer;
    beforeAll(async () => {
      ts = await startTestServer(target.name);
    });
    afterAll(async () => ts?.stop());

    it('kicks an account out: its token gets code 3 and its console socket is closed', async () => {
      const admin = client(ts, (await loginAsAdmin(ts)).token);
      const account = unique('kicked');
      await createOrg(admin, { name: unique('Org '), account, password: 'Owner_pw1' });
      const first = await loginAs(ts, account, 'Owner_pw1');
      const org = { accountId: first.accountId, c: client(ts, first.token) };
      const login = await loginAs(ts, account, 'Owner_pw1');
      const wsUrl = ts.server.url.replace('http', 'ws');
      const engine = new ProtocolEngine({
        url: () => `${wsUrl}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`,
        transport: wsTransport(),
        idPrefix: 'c',
      });
      engine.start();
      await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
      const out = await admin.ok<{ sessions: number }>('GET', `/org/kitoutUser/${org.accountId}`);
      expect(out.sessions).toBe(2);
      const stopped = await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'stopped')));
      expect(stopped).toMatchObject({ reason: 'rejected', closeCode: CloseCode.SessionEnded });
      expect(await org.c.call('GET', '/home/getAccountDetail')).toMatchObject({ code: 3 });
      expect(await client(ts, login.token).call('GET', '/home/getAccountDetail')).toMatchObject({ code: 3 });
    });
  });

  describe.skipIf(!target.available)(`organisation creation limit (${target.name})`, () => {
    let ts: TestServer;
    beforeAll(async () => {
      ts = await injectTestServer(target.name, { ORG_CREATE_LIMIT: '1' });
    });
    afterAll(async () => ts?.stop());

    it('refuses organisations past ORG_CREATE_LIMIT with the spec message', async () => {
      const admin = client(ts, (await loginAsAdmin(ts)).token);
      await createOrg(admin, { name: 'Only one', account: 'onlyone', password: 'Only_pw1' });
      const res = await admin.call('POST', '/org/add', { name: 'One too many', account: 'toomany', password: clientPasswordHash('Many_pw1'), roleId: await adminRoleId(admin) });
      expect(res).toMatchObject({ code: 40001, message: LIMIT_MESSAGE });
      expect((await tryLogin(ts, 'toomany', 'Many_pw1')).code).toBe(40002);
    });
  });
}
