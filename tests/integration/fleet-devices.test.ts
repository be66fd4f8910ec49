import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Country, OnlineState } from '../../protocol/index.ts';
import { type Client, client, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();
const DENIED = { code: 40003, message: 'Permission denied or Session expire' };

interface DeviceRow {
  sn: string;
  orgId: number;
  orgName: string;
  model: string;
  remark: string;
  country: string;
  onlineState: number;
  imei: string;
  battery: number | null;
  supportFlags: string[];
}
type Page = { total: number; list: DeviceRow[] };

/** Entity fields a test device may be given beyond the basic ones. */
type EntityFields = { imei?: string; network_type?: number; manufacturer?: string; location?: string; battery?: number | null; mcu_version?: string; uptime?: number };

async function addDevice(ts: TestServer, sn: string, orgId: number, fields: { model?: string; online?: boolean; system?: string; entity?: EntityFields } = {}): Promise<void> {
  await ts.server.db
    .insertInto('devices')
    .values({
      sn,
      org_id: orgId,
      secret_hash: 'x',
      model: fields.model ?? 'P10',
      system_type: fields.system ?? 'android',
      system_version: '',
      image_version: '',
      online_state: fields.online ? OnlineState.Online : OnlineState.Offline,
      created_at: Date.now(),
      ...fields.entity,
    })
    .execute();
}

for (const target of targets) {
  describe.skipIf(!target.available)(`device list and edits (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let rootId: number;
    let childId: number;
    let child: Client;

    beforeAll(async () => {
      ts = await startTestServer(target.name);
      const login = await loginAsAdmin(ts);
      admin = client(ts, login.token);
      rootId = login.orgId;
      const roleId = await createRole(admin, 'fleet-operator', ['device_list', 'device_remark', 'device_allocate', 'device_country', 'remote_list']);
      childId = await createOrg(admin, { name: 'Child', account: 'childorg', password: 'Child_pw_1', roleId });
      child = client(ts, (await loginAs(ts, 'childorg', 'Child_pw_1')).token);
      for (let i = 0; i < 12; i++) await addDevice(ts, `ROOT${String(i).padStart(2, '0')}`, rootId, { model: i % 2 ? 'K9 POS' : 'P10', online: i < 4, system: i % 3 ? 'android' : 'linux' });
      for (let i = 0; i < 3; i++) await addDevice(ts, `KID${i}`, childId);
    });
    afterAll(async () => ts?.stop());

    it('filters, sorts and pages on the server, scoped to the caller', async () => {
      const all = await admin.ok<Page>('POST', '/device/list', { pageNum: 1, pageSize: 100 });
      expect(all.total).toBe(15);
      const pos = await admin.ok<Page>('POST', '/device/list', { model: 'k9', pageSize: 100 });
      expect(pos.total).toBe(6);
      expect(pos.list.every((d) => d.model === 'K9 POS')).toBe(true);
      const online = await admin.ok<Page>('POST', '/device/list', { onlineState: 1, systemType: 'linux', pageSize: 100 });
      expect(online.list.map((d) => d.sn).sort()).toEqual(['ROOT00', 'ROOT03']);
      const bySnAsc = await admin.ok<Page>('POST', '/device/list', { sortField: 'sn', sortOrder: 'asc', pageNum: 2, pageSize: 10 });
      expect(bySnAsc.list.map((d) => d.sn)).toEqual(['ROOT07', 'ROOT08', 'ROOT09', 'ROOT10', 'ROOT11']);
      const byOrg = await admin.ok<Page>('POST', '/device/list', { sortField: 'orgName', sortOrder: 'asc', pageSize: 10 });
      expect(byOrg.list[0]).toMatchObject({ orgName: 'Child', orgId: childId });
      const mine = await child.ok<Page>('POST', '/device/list', { pageSize: 100 });
      expect(mine.list.map((d) => d.sn).sort()).toEqual(['KID0', 'KID1', 'KID2']);
      expect(await child.call('POST', '/device/list', { sortField: 'secret_hash' })).toMatchObject({ code: 40001 });
    });

    it('resolves a query to serials for control by query, within scope', async () => {
      const sel = await admin.ok<{ total: number; sns: string[] }>('POST', '/device/select', { onlineState: 1 });
      expect(sel.sns.sort()).toEqual(['ROOT00', 'ROOT01', 'ROOT02', 'ROOT03']);
      expect((await child.ok<{ total: number; sns: string[] }>('POST', '/device/select', {})).total).toBe(3);
    });

    it('remarks and sets the country of devices in scope only', async () => {
      await admin.ok('POST', '/device/remark', { sns: ['ROOT01', 'KID0'], remark: '  front desk ' });
      await admin.ok('POST', '/device/country', { sns: ['ROOT01'], country: Country.Abroad });
      const page = await admin.ok<Page>('POST', '/device/list', { sn: 'ROOT01' });
      expect(page.list[0]).toMatchObject({ remark: 'front desk', country: 'abroad' });
      expect((await admin.ok<Page>('POST', '/device/list', { country: 'abroad' })).total).toBe(1);
      expect(await child.call('POST', '/device/remark', { sns: ['ROOT01'], remark: 'x' })).toMatchObject(DENIED);
      expect(await child.call('POST', '/device/country', { sns: ['KID0'], country: 'mars' })).toMatchObject({ code: 40001 });
      expect(await admin.call('POST', '/device/remark', { sns: ['ROOT01'], remark: 'bad 😀' })).toMatchObject({ code: 40001, message: 'Remark cannot contain emoji!' });
    });

    it('allocates devices only into organisations in scope', async () => {
      expect(await child.call('POST', '/device/allocate', { sns: ['KID0'], orgId: rootId })).toMatchObject(DENIED);
      expect(await child.call('POST', '/device/allocate', { sns: ['ROOT02'], orgId: childId })).toMatchObject(DENIED);
      await admin.ok('POST', '/device/allocate', { sns: ['ROOT02'], orgId: childId });
      const mine = await child.ok<Page>('POST', '/device/list', { pageSize: 100 });
      expect(mine.list.map((d) => d.sn)).toContain('ROOT02');
    });

    it('refuses the edits without their permission key', async () => {
      const roleId = await createRole(admin, 'viewer-only', ['device_list']);
      await createOrg(admin, { name: 'Viewer', account: 'viewerorg', password: 'Viewer_pw_1', roleId });
      const viewer = client(ts, (await loginAs(ts, 'viewerorg', 'Viewer_pw_1')).token);
      expect(await viewer.call('POST', '/device/remark', { sns: ['KID1'], remark: 'x' })).toMatchObject(DENIED);
      expect(await viewer.call('POST', '/device/select', {})).toMatchObject(DENIED);
    });

    it('stores the entity fields a device reports at login, and moves a connected device to its new organisation', async () => {
      // A raw device, as an outside agent author would write one, reporting extra entity fields at login.
      const raw = new WebSocket(`${ts.server.deviceSocketUrl}?sn=FIELDS2&enroll=${ts.server.seeded.enrollKey}`);
      await new Promise((r) => raw.once('open', r));
      const reply = new Promise<string>((r) => raw.once('message', (d: Buffer) => r(d.toString())));
      raw.send(JSON.stringify({ msgId: 1, cid: 'l', data: { model: 'L1', systemType: 'linux', imei: '861234567890123', battery: 87, supportFlags: ['camera', 'adb', 'bogus'], uptime: 3600 } }));
      await reply;
      const row = (await admin.ok<Page>('POST', '/device/list', { sn: 'FIELDS2' })).list[0];
      expect(row).toMatchObject({ imei: '861234567890123', battery: 87, supportFlags: ['camera', 'adb'] });

      const closed = new Promise<number>((r) => raw.once('close', (code: number) => r(code)));
      await admin.ok('POST', '/device/allocate', { sns: ['FIELDS2'], orgId: childId });
      expect(await closed).toBe(1001);
    });

    it('filters by IMEI, network type, manufacturer, location, MCU version and battery, within scope, and sorts by plain columns', async () => {
      // Entity fields for the new filters: two in the root, one in the child organisation, which the
      // root's filters reach (its scope includes the child) and the child's reach only for its own.
      await addDevice(ts, 'ENT-A', rootId, { entity: { imei: '356999000000001', network_type: 2, manufacturer: 'Acme Devices', location: 'Shenzhen Nanshan', battery: 15, mcu_version: 'v1.03', uptime: 50 } });
      await addDevice(ts, 'ENT-B', rootId, { entity: { imei: '356999000000002', network_type: 1, manufacturer: 'Globex', location: 'Hangzhou Xihu', battery: 80, mcu_version: 'v2.00', uptime: 500 } });
      await addDevice(ts, 'ENT-C', childId, { entity: { imei: '356999000000003', network_type: 2, manufacturer: 'ACME devices', location: 'shenzhen futian', battery: 40, mcu_version: 'v1.10', uptime: 5 } });
      const sns = async (c: Client, body: object) => (await c.ok<Page>('POST', '/device/list', { pageSize: 100, ...body })).list.map((d) => d.sn).sort();
      expect(await sns(admin, { imei: '999000000002' })).toEqual(['ENT-B']);
      expect(await sns(admin, { sn: 'ENT-', networkType: 2 })).toEqual(['ENT-A', 'ENT-C']);
      expect(await sns(admin, { manufacturer: 'acme' })).toEqual(['ENT-A', 'ENT-C']);
      expect(await sns(admin, { location: 'SHENZHEN' })).toEqual(['ENT-A', 'ENT-C']);
      expect(await sns(admin, { location: 'shenzhen', networkType: 2, manufacturer: 'acme', imei: '35699900' })).toEqual(['ENT-A', 'ENT-C']);
      expect(await sns(admin, { mcuVersion: 'v1.' })).toEqual(['ENT-A', 'ENT-C']);
      // Devices that never reported a battery do not match a battery bound.
      expect(await sns(admin, { batteryMax: 40 })).toEqual(['ENT-A', 'ENT-C']);
      // A LIKE wildcard in the text is taken literally.
      expect(await sns(admin, { manufacturer: '%' })).toEqual([]);
      // The child's scope holds only its own devices, whatever the filter.
      expect(await sns(child, { manufacturer: 'acme' })).toEqual(['ENT-C']);
      expect(await sns(child, { imei: '999000000001' })).toEqual([]);
      // Control by query takes the same filters.
      expect((await admin.ok<{ sns: string[] }>('POST', '/device/select', { sn: 'ENT-', networkType: 1 })).sns).toEqual(['ENT-B']);
      // Sorting by plain columns, on the server.
      expect(await admin.ok<Page>('POST', '/device/list', { sn: 'ENT-', networkType: 2, sortField: 'uptime', sortOrder: 'asc' }).then((p) => p.list.map((d) => d.sn))).toEqual(['ENT-C', 'ENT-A']);
      expect(await admin.ok<Page>('POST', '/device/list', { imei: '3569990', sortField: 'mcuVersion', sortOrder: 'asc' }).then((p) => p.list.map((d) => d.sn))).toEqual(['ENT-A', 'ENT-C', 'ENT-B']);
      // Invalid values are refused, not ignored.
      for (const bad of [{ networkType: 7 }, { batteryMax: 101 }, { batteryMax: -1 }, { imei: 'x'.repeat(65) }, { location: 'x'.repeat(257) }, { sortField: 'support_flags' }, { sortField: 'storage' }]) {
        expect(await admin.call('POST', '/device/list', bad), JSON.stringify(bad)).toMatchObject({ code: 40001 });
      }
    });
  });
}
