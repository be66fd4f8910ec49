import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceFieldView } from '../../protocol/api/device-fields.ts';
import type { DeviceView, Page } from '../../protocol/api/devices.ts';
import type { GroupView } from '../../protocol/api/groups.ts';
import { OnlineState } from '../../protocol/index.ts';
import { type Client, client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { injectTestServer, loginAs, loginAsAdmin, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

/** Custom device fields (issue 23): defined per organisation, set per device, listed, filtered and used in group queries. */
describe.each(targets)('custom device fields on $name', (target) => {
  let ts: TestServer;
  let admin: Client;
  let branch: Client;
  let branchOrg: number;
  const sns = ['CF000', 'CF001', 'CF002'];

  beforeAll(async () => {
    if (!target.available) return;
    ts = await injectTestServer(target.name);
    const login = await loginAsAdmin(ts);
    admin = client(ts, login.token);
    branchOrg = await createOrg(admin, { name: 'Field branch', account: 'fieldbranch', password: 'Branch_pw1', parentId: login.orgId });
    branch = client(ts, (await loginAs(ts, 'fieldbranch', 'Branch_pw1')).token);
    const now = Date.now();
    await ts.server.db
      .insertInto('devices')
      .values(sns.map((sn, k) => ({ sn, org_id: k === 2 ? branchOrg : login.orgId, secret_hash: 'x', model: 'P10', system_type: 'android', system_version: 'v', image_version: 'i', online_state: OnlineState.Offline, latest_online_time: now, created_at: now })))
      .execute();
  }, 60_000);
  afterAll(async () => ts?.stop());

  const list = async (c: Client, body: object) => (await c.ok<Page<DeviceView>>('POST', '/device/list', { pageSize: 100, sn: 'CF', sortField: 'sn', sortOrder: 'asc', ...body })).list;

  it.runIf(target.available)('defines fields, sets them on devices, lists, filters and groups by them', async () => {
    const site = await admin.ok<DeviceFieldView>('POST', '/device-field/add', { name: 'Site', type: 'text' });
    const floor = await admin.ok<DeviceFieldView>('POST', '/device-field/add', { name: 'Floor', type: 'number' });
    const tier = await admin.ok<DeviceFieldView>('POST', '/device-field/add', { name: 'Tier', type: 'select', options: ['gold', 'silver'] });
    expect((await admin.call('POST', '/device-field/add', { name: 'Site', type: 'text' })).message).toBe('A custom field with this name already exists');
    expect((await admin.call('POST', '/device-field/add', { name: 'Empty', type: 'select', options: [] })).message).toBe('A choice field needs at least one option');
    await admin.ok('POST', '/device-field/set', { sn: 'CF000', values: [{ id: site.id, value: 'Berlin North' }, { id: floor.id, value: '03' }, { id: tier.id, value: 'gold' }] });
    await admin.ok('POST', '/device-field/set', { sn: 'CF001', values: [{ id: site.id, value: 'Munich' }, { id: tier.id, value: 'silver' }] });
    expect((await admin.call('POST', '/device-field/set', { sn: 'CF001', values: [{ id: floor.id, value: 'three' }] })).message).toBe('Floor must be a number');
    expect((await admin.call('POST', '/device-field/set', { sn: 'CF001', values: [{ id: tier.id, value: 'bronze' }] })).message).toBe('Tier: choose one of its options');

    const rows = await list(admin, {});
    expect(rows.map((d) => [d.sn, d.fields ?? {}])).toEqual([
      ['CF000', { [site.id]: 'Berlin North', [floor.id]: '3', [tier.id]: 'gold' }],
      ['CF001', { [site.id]: 'Munich', [tier.id]: 'silver' }],
      ['CF002', {}],
    ]);
    // Text: a substring ignoring case; number and select: exactly.
    expect((await list(admin, { fields: [{ id: site.id, value: 'berlin' }] })).map((d) => d.sn)).toEqual(['CF000']);
    expect((await list(admin, { fields: [{ id: floor.id, value: '3' }] })).map((d) => d.sn)).toEqual(['CF000']);
    expect((await list(admin, { fields: [{ id: tier.id, value: 'gol' }] })).map((d) => d.sn)).toEqual([]);
    expect((await list(admin, { fields: [{ id: tier.id, value: 'silver' }] })).map((d) => d.sn)).toEqual(['CF001']);
    // A dynamic group by a custom field.
    const group = await admin.ok<GroupView>('POST', '/device-group/create', { name: 'Gold tier', query: { fields: [{ id: tier.id, value: 'gold' }] } });
    expect(group.members).toBe(1);
    // Clearing a value deletes it.
    await admin.ok('POST', '/device-field/set', { sn: 'CF000', values: [{ id: floor.id, value: '' }] });
    expect((await list(admin, { sn: 'CF000' }))[0]?.fields).toEqual({ [site.id]: 'Berlin North', [tier.id]: 'gold' });
  });

  it.runIf(target.available)('renames a field and replaces a choice field\'s options: devices holding a dropped option lose it, the type stays', async () => {
    const fields = await admin.ok<DeviceFieldView[]>('POST', '/device-field/list');
    const tier = fields.find((f) => f.name === 'Tier');
    const floor = fields.find((f) => f.name === 'Floor');
    if (!tier || !floor) throw new Error('fields of the first test are missing');
    expect((await admin.call('POST', '/device-field/update', { id: tier.id, name: 'Site' })).message).toBe('A custom field with this name already exists');
    expect((await admin.call('POST', '/device-field/update', { id: tier.id, name: 'Tier', options: [] })).message).toBe('A choice field needs at least one option');
    const renamed = await admin.ok<DeviceFieldView>('POST', '/device-field/update', { id: tier.id, name: 'Service tier', options: ['gold', 'bronze'] });
    expect(renamed).toEqual({ ...tier, name: 'Service tier', options: ['gold', 'bronze'] });
    // CF001 held 'silver', which is gone; CF000 keeps 'gold'.
    const rows = await list(admin, {});
    expect(rows.map((d) => d.fields?.[String(tier.id)])).toEqual(['gold', undefined, undefined]);
    // A number field keeps its type and takes no options; the same name again is no clash with itself.
    expect(await admin.ok<DeviceFieldView>('POST', '/device-field/update', { id: floor.id, name: 'Floor', options: ['x'] })).toEqual({ ...floor, options: [] });
    expect((await branch.call('POST', '/device-field/update', { id: tier.id, name: 'Mine now' })).message).toBe('The custom field does not exist');
  });

  it.runIf(target.available)('fields are the organisation\'s: a child organisation neither sees nor sets the parent\'s; keys gate definition and values', async () => {
    const own = await branch.ok<DeviceFieldView>('POST', '/device-field/add', { name: 'Shelf', type: 'text' });
    const rootFields = await admin.ok<DeviceFieldView[]>('POST', '/device-field/list');
    const branchFields = await branch.ok<DeviceFieldView[]>('POST', '/device-field/list');
    expect(branchFields.map((f) => f.name)).toEqual(['Shelf']);
    expect(rootFields.map((f) => f.name)).toContain('Shelf');
    // For one device: the fields of its organisation and those above it, within the caller's.
    const forDevice = async (c: Client, sn: string) => (await c.ok<DeviceFieldView[]>('POST', '/device-field/list', { sn })).map((f) => f.name);
    expect(await forDevice(admin, 'CF000')).not.toContain('Shelf');
    expect(await forDevice(admin, 'CF002')).toContain('Shelf');
    expect(await forDevice(branch, 'CF002')).toEqual(['Shelf']);
    expect((await branch.call('POST', '/device-field/list', { sn: 'CF000' })).code).not.toBe(20000);
    const site = rootFields.find((f) => f.name === 'Site');
    expect((await branch.call('POST', '/device-field/set', { sn: 'CF002', values: [{ id: site?.id ?? 0, value: 'x' }] })).message).toBe('The custom field does not exist');
    expect((await branch.call('DELETE', `/device-field/${site?.id ?? 0}`)).message).toBe('The custom field does not exist');
    // The branch's field applies to the branch's devices only.
    expect((await admin.call('POST', '/device-field/set', { sn: 'CF000', values: [{ id: own.id, value: 'A1' }] })).message).toBe('This field belongs to an organisation the device is not in');
    await branch.ok('POST', '/device-field/set', { sn: 'CF002', values: [{ id: own.id, value: 'A1' }] });
    expect((await list(branch, {}))[0]?.fields).toEqual({ [own.id]: 'A1' });
    // Defining needs device_field; setting values needs device_remark.
    const roleId = await createRole(admin, 'Field readers', ['device_list']);
    await createAccount(admin, 'fieldreader', 'Reader_pw1', roleId);
    const reader = client(ts, (await loginAs(ts, 'fieldreader', 'Reader_pw1')).token);
    expect((await reader.ok<DeviceFieldView[]>('POST', '/device-field/list')).length).toBeGreaterThan(0);
    expect((await reader.call('POST', '/device-field/add', { name: 'Nope', type: 'text' })).code).not.toBe(20000);
    expect((await reader.call('POST', '/device-field/set', { sn: 'CF000', values: [{ id: site?.id ?? 0, value: 'x' }] })).code).not.toBe(20000);
    await admin.ok('DELETE', `/device-field/${site?.id ?? 0}`);
    expect((await list(admin, { sn: 'CF000' }))[0]?.fields?.[String(site?.id)]).toBeUndefined();
  });
});
