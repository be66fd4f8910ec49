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

async function addDevice(ts: TestServer, sn: string, orgId: number, fields: { model?: string; online?: boolean; system?: string } = {}): Promise<void> {
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
  });
}
