import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import type { PushStartReply, PushStarted } from '../../protocol/api/campaigns.ts';
import type { DeviceBulkCommandReply } from '../../protocol/api/device-ops.ts';
import type { GroupMembers, GroupView } from '../../protocol/api/groups.ts';
import { Command, Result } from '../../protocol/index.ts';
import { type Client, client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { buyCoupons } from '../support/coupons.ts';
import { dbTargets } from '../support/databases.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

/**
 * Dynamic groups (issue 23) over a real server and simulated devices: a group is a saved query whose
 * members are evaluated when it is used (a bulk command, a push) and, for a campaign, whenever a device
 * joins it while the campaign runs.
 */
describe.each(targets)('dynamic groups on $name', (target) => {
  let ts: TestServer;
  let admin: Client;
  let adminToken: string;
  let rootOrgId: number;
  const devices: DeviceSession[] = [];
  const tag = target.name === 'sqlite' ? 'S' : 'P';
  const members = [0, 1].map((i) => `GRPJ${tag}${i}`);
  const joiner = `GRPJ${tag}2`;
  const outsider = `GRPX${tag}0`;

  beforeAll(async () => {
    if (!target.available) return;
    ts = await startTestServer(target.name);
    const login = await loginAsAdmin(ts);
    adminToken = login.token;
    rootOrgId = login.orgId;
    admin = client(ts, adminToken);
    await startVirtualDevices(ts, [...members, outsider], devices);
    await buyCoupons(ts.server.url, adminToken, adminToken, 50);
  }, 60_000);

  afterAll(async () => {
    devices.forEach((d) => d.dispose());
    await ts?.stop();
  });

  const targetsOf = async (campaignId: number) =>
    (await ts.server.db.selectFrom('push_targets').select(['sn', 'phase']).where('campaign_id', '=', campaignId).orderBy('sn').execute()).map((r) => [r.sn, r.phase]);

  it.runIf(target.available)('a dynamic group picks up a device that joins after the campaign started', { timeout: 60_000 }, async () => {
    const group = await admin.ok<GroupView>('POST', '/device-group/create', { name: `Joiners ${tag}`, query: { sn: `GRPJ${tag}`, systemType: 'android', orgSubtree: rootOrgId } });
    expect(group.members).toBe(2);
    const contentId = await uploadFirmware(ts.server.url, adminToken);
    const started = (await admin.ok<PushStartReply>('POST', '/push/start', { kind: 'firmware', contentId, deviceGroupId: group.id, offlineWindowMinutes: 60 })) as PushStarted;
    expect([...started.sns].sort()).toEqual(members);
    expect(started.campaign.deviceGroupId).toBe(group.id);
    // Both members finish; the campaign keeps following its group (its offline window is an hour).
    await vi.waitFor(async () => expect(await targetsOf(started.campaign.id)).toEqual(members.map((sn) => [sn, 'done'])), { timeout: 30_000, interval: 100 });
    // A new device enrols: it matches the group's query, so the running campaign takes it and pushes to it.
    await startVirtualDevices(ts, [joiner], devices);
    await vi.waitFor(async () => expect(await targetsOf(started.campaign.id)).toEqual([...members, joiner].map((sn) => [sn, 'done'])), { timeout: 30_000, interval: 100 });
    const campaign = await admin.ok<{ total: number; success: number; state: string }>('GET', `/push/campaign/${started.campaign.id}`);
    expect(campaign).toMatchObject({ total: 3, success: 3, state: 'running' });
    // The device outside the query was never a target.
    expect((await targetsOf(started.campaign.id)).map(([sn]) => sn)).not.toContain(outsider);
  });

  it.runIf(target.available)('a bulk command reaches the group members at the time of the call', { timeout: 30_000 }, async () => {
    const group = await admin.ok<GroupView>('POST', '/device-group/create', { name: `Bulk ${tag}`, query: { sn: `GRPX${tag}` } });
    const reply = await admin.ok<DeviceBulkCommandReply>('POST', '/device-ops/bulk', { deviceGroupId: group.id, msgId: Command.PushText, data: { text: 'to the group' } });
    expect(reply.list.map((r) => [r.sn, r.result])).toEqual([[outsider, Result.Success]]);
    const both = await admin.call('POST', '/device-ops/bulk', { deviceGroupId: group.id, sns: [outsider], msgId: Command.PushText, data: { text: 'x' } });
    expect(both.message).toBe('Choose the devices either by serial number or by group, not both');
  });

  it.runIf(target.available)('groups are org-scoped: another organisation neither sees, uses nor changes them; managing needs device_group', { timeout: 30_000 }, async () => {
    const group = await admin.ok<GroupView>('POST', '/device-group/create', { name: `Root only ${tag}`, query: { model: 'P10' } });
    const branchOrg = await createOrg(admin, { name: `Group branch ${tag}`, account: `grpbranch${tag.toLowerCase()}`, password: 'Branch_pw1', parentId: rootOrgId });
    const branch = client(ts, (await loginAs(ts, `grpbranch${tag.toLowerCase()}`, 'Branch_pw1')).token);
    expect((await branch.ok<{ total: number; list: GroupView[] }>('POST', '/device-group/list', {})).list.map((g) => g.id)).not.toContain(group.id);
    expect((await branch.call('POST', '/device-group/members', { id: group.id })).message).toBe('The device group does not exist');
    expect((await branch.call('POST', '/device-group/update', { id: group.id, name: 'x', query: {} })).message).toBe('The device group does not exist');
    expect((await branch.call('POST', '/device-ops/bulk', { deviceGroupId: group.id, msgId: Command.PushText, data: { text: 'x' } })).message).toBe('The device group does not exist');
    // A subtree outside the caller's organisations is refused, not silently empty.
    expect((await branch.call('POST', '/device-group/create', { name: 'probe', query: { orgSubtree: rootOrgId } })).message).toBe('Permission denied or Session expire');
    // The branch's own group of the same name is its own; the root (above it) sees both.
    const own = await branch.ok<GroupView>('POST', '/device-group/create', { name: `Root only ${tag}`, query: {} });
    expect(own).toMatchObject({ orgId: branchOrg, members: 0 });
    expect((await admin.call('POST', '/device-group/create', { name: `Root only ${tag}`, query: {} })).message).toBe('A device group with this name already exists');
    const rootList = await admin.ok<{ list: GroupView[] }>('POST', '/device-group/list', { name: `root only ${tag}` });
    expect(rootList.list.map((g) => g.id).sort()).toEqual([group.id, own.id].sort());
    // An account with device_list but not device_group reads groups and cannot change them.
    const roleId = await createRole(admin, `Group readers ${tag}`, ['device_list']);
    await createAccount(admin, `grpreader${tag.toLowerCase()}`, 'Reader_pw1', roleId);
    const reader = client(ts, (await loginAs(ts, `grpreader${tag.toLowerCase()}`, 'Reader_pw1')).token);
    const page = await reader.ok<GroupMembers>('POST', '/device-group/members', { id: group.id, pageSize: 100 });
    expect(page.total).toBeGreaterThan(0);
    expect((await reader.call('DELETE', `/device-group/${group.id}`)).code).not.toBe(20000);
    await admin.ok('DELETE', `/device-group/${group.id}`);
    expect((await admin.call('POST', '/device-group/members', { id: group.id })).message).toBe('The device group does not exist');
  });
});
