import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import type { PushStartReply, PushStarted } from '../../protocol/api/campaigns.ts';
import { dbTargets } from '../support/databases.ts';
import { type Client, client, createOrg } from '../support/console-api.ts';
import { buyCoupons } from '../support/coupons.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

/**
 * /push/start by query: the devices are the device list's filter resolved on the server, inside the caller's
 * organisations; what the caller cannot see is never pushed, and an empty result is refused.
 */
describe.each(targets)('push by query on $name', (target) => {
  let ts: TestServer;
  let admin: Client;
  let branch: Client;
  let branchToken: string;
  let rootOrgId: number;
  const devices: DeviceSession[] = [];
  const tag = target.name === 'sqlite' ? 'S' : 'P';
  const rootSns = [0, 1, 2].map((i) => `QRYROOT${tag}${i}`);
  const branchSns = [0, 1, 2].map((i) => `QRYBR${tag}${i}`);

  beforeAll(async () => {
    if (!target.available) return;
    ts = await startTestServer(target.name);
    const login = await loginAsAdmin(ts);
    rootOrgId = login.orgId;
    admin = client(ts, login.token);
    // Devices enrol into the root organisation; three are then allocated to a branch below it.
    await startVirtualDevices(ts, [...rootSns, ...branchSns], devices, { tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } } });
    const branchOrgId = await createOrg(admin, { name: `Query branch ${tag}`, account: `qrybranch${tag.toLowerCase()}`, password: 'Branch_pw1', parentId: rootOrgId });
    await admin.ok('POST', '/device/allocate', { sns: branchSns, orgId: branchOrgId });
    branchToken = (await loginAs(ts, `qrybranch${tag.toLowerCase()}`, 'Branch_pw1')).token;
    branch = client(ts, branchToken);
    await buyCoupons(ts.server.url, branchToken, login.token, 50);
  }, 60_000);

  afterAll(async () => {
    devices.forEach((d) => d.dispose());
    await ts?.stop();
  });

  const targetsOf = async (campaignId: number) => (await ts.server.db.selectFrom('push_targets').select('sn').where('campaign_id', '=', campaignId).execute()).map((r) => r.sn).sort();

  it.runIf(target.available)('pushes to the devices the query matches in the caller organisations only', { timeout: 60_000 }, async () => {
    const contentId = await uploadFirmware(ts.server.url, branchToken);
    // Every device of the query would include the root's three if scope were not applied.
    const started = (await branch.ok<PushStartReply>('POST', '/push/start', { kind: 'firmware', contentId, query: { sn: 'QRY' } })) as PushStarted;
    expect([...started.sns].sort()).toEqual([...branchSns].sort());
    expect(started.campaign.total).toBe(3);
    expect(await targetsOf(started.campaign.id)).toEqual([...branchSns].sort());
    // Text filters are case-insensitive substrings, as in the device list.
    const byModel = (await branch.ok<PushStartReply>('POST', '/push/start', { kind: 'firmware', contentId, query: { model: 'p1', sn: `br${tag}1` } })) as PushStarted;
    expect(byModel.sns).toEqual([`QRYBR${tag}1`]);
  });

  it.runIf(target.available)('refuses a query that matches nothing in scope with the at-least-one-device message', { timeout: 30_000 }, async () => {
    const contentId = await uploadFirmware(ts.server.url, branchToken);
    const before = await ts.server.db.selectFrom('push_campaigns').select('id').execute();
    // The root organisation's devices, named by organisation and by serial: out of the branch's reach.
    const byOrg = await branch.call('POST', '/push/start', { kind: 'firmware', contentId, query: { orgId: rootOrgId } });
    expect(byOrg.message).toBe('Please select at least one device');
    const bySn = await branch.call('POST', '/push/start', { kind: 'firmware', contentId, query: { sn: rootSns[0] } });
    expect(bySn.message).toBe('Please select at least one device');
    const none = await branch.call('POST', '/push/start', { kind: 'firmware', contentId, query: { model: 'no such model' } });
    expect(none.message).toBe('Please select at least one device');
    expect(await ts.server.db.selectFrom('push_campaigns').select('id').execute()).toHaveLength(before.length);
  });

  it.runIf(target.available)('validates the query: known fields only, and serials or a query, not both', { timeout: 30_000 }, async () => {
    const contentId = await uploadFirmware(ts.server.url, branchToken);
    expect((await branch.call('POST', '/push/start', { kind: 'firmware', contentId, query: { owner: 'x' } })).code).toBe(40001);
    expect((await branch.call('POST', '/push/start', { kind: 'firmware', contentId, query: { onlineState: 7 } })).code).toBe(40001);
    const both = await branch.call('POST', '/push/start', { kind: 'firmware', contentId, sns: [branchSns[0]], query: { sn: 'QRY' } });
    expect(both.message).toBe('Choose the devices either by serial number or by query, not both');
    // The root account's scope holds the branch: the same query there reaches all six.
    const rootToken = (await loginAsAdmin(ts)).token;
    const rootContent = await uploadFirmware(ts.server.url, rootToken);
    await buyCoupons(ts.server.url, rootToken, rootToken, 50);
    const all = (await admin.ok<PushStartReply>('POST', '/push/start', { kind: 'firmware', contentId: rootContent, query: { sn: 'QRY' } })) as PushStarted;
    expect([...all.sns].sort()).toEqual([...rootSns, ...branchSns].sort());
  });
});
