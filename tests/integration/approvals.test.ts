// Four-eyes approval (issue 23), on the real server with real sockets: a factory reset from a console
// socket waits for a second account's approval (the device hears nothing until then); the requester cannot
// approve its own request; an approver without scope over the device is refused; once approved, the device
// receives the command sent as the requester, and the timeline and the operation log show each step. A
// bulk command over the organisation's threshold waits too; a rejected one never reaches the devices.
import { filter, lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ApprovalCount, ApprovalView } from '../../protocol/api/approvals.ts';
import type { CampaignView, PushStarted } from '../../protocol/api/campaigns.ts';
import type { DeviceBulkCommandReply, DeviceCommandReply } from '../../protocol/api/device-ops.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { OperationLogEntry } from '../../protocol/api/reports.ts';
import type { TimelineEntry } from '../../protocol/api/timeline.ts';
import { type ApprovalDecidedEvent, Command, decodeRequest, type Envelope, type ProtocolEngine, Result } from '../../protocol/index.ts';
import { client, type Client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { buyCoupons } from '../support/coupons.ts';
import { dbTargets } from '../support/databases.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { loginAs, loginAsAdmin, openConsole, startTestServer, type TestServer } from '../support/server.ts';
import { replyDataFor } from '../support/device-replies.ts';

/** A device speaking JSON by hand: it records every command it is sent and answers each with result 0. */
class RawDevice {
  readonly got: Envelope[] = [];
  readonly #waiters: { match: (e: Envelope) => boolean; resolve: (e: Envelope) => void }[] = [];
  #beats = 0;
  readonly ws: WebSocket;
  private constructor(ws: WebSocket) {
    this.ws = ws;
  }

  static async enrol(url: string, sn: string, enrollKey: string): Promise<RawDevice> {
    const ws = new WebSocket(`${url}?sn=${sn}&enroll=${encodeURIComponent(enrollKey)}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const device = new RawDevice(ws);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      const env = JSON.parse(data.toString()) as Envelope;
      const i = device.#waiters.findIndex((w) => w.match(env));
      if (i >= 0) device.#waiters.splice(i, 1)[0]?.resolve(env);
      if (env.result !== undefined || env.msgId === Command.Heartbeat) return;
      device.got.push(env);
      device.send({ msgId: env.msgId, cid: env.cid, result: Result.Success, data: replyDataFor(env.msgId) });
    });
    const login = device.next((e) => e.msgId === Command.DeviceLogin && e.cid === 'login');
    device.send({ msgId: Command.DeviceLogin, cid: 'login', data: { model: 'raw', systemType: 'android' } });
    expect(await login).toMatchObject({ result: Result.Success });
    return device;
  }

  send(env: Envelope): void {
    this.ws.send(JSON.stringify(env));
  }

  next(match: (e: Envelope) => boolean): Promise<Envelope> {
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** A heartbeat round trip: whatever the gateway wrote to this socket before has arrived. */
  async synced(): Promise<void> {
    const cid = `hb-${this.#beats++}`;
    const answered = this.next((e) => e.msgId === Command.Heartbeat && e.cid === cid);
    this.send({ msgId: Command.Heartbeat, cid });
    await answered;
  }
}

const targets = await dbTargets();

for (const target of targets) {
  describe.skipIf(!target.available)(`four-eyes approval (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let approver: Client;
    let outsider: Client;
    let adminConsole: ProtocolEngine;
    const devices: RawDevice[] = [];
    const SN = `FE-${target.name}-1`;
    const BULK = Array.from({ length: 21 }, (_, i) => `FEB-${target.name}-${i}`);

    const timeline = (sn: string) => admin.ok<Page<TimelineEntry>>('POST', '/device/timeline', { sn, pageNum: 1, pageSize: 100 });

    beforeAll(async () => {
      ts = await startTestServer(target.name);
      const login = await loginAsAdmin(ts);
      admin = client(ts, login.token);
      adminConsole = await openConsole(ts.server.url, login);
      // A second account of the same organisation holding the approve key (and no reset key of its own; the
      // firmware push key, to show /push/approve does not stand in for the four-eyes approval).
      const role = await createRole(admin, 'fe-approver', ['device_list', 'approve_dangerous', 'img_push']);
      await createAccount(admin, 'feapprover', 'Approver_pass_1', role);
      approver = client(ts, (await loginAs(ts, 'feapprover', 'Approver_pass_1')).token);
      // An admin of a child organisation: it holds every key, but its scope does not reach the root's devices.
      await createOrg(admin, { name: 'Four-eyes child', account: 'fechild', password: 'Child_pass_1', parentId: login.orgId });
      outsider = client(ts, (await loginAs(ts, 'fechild', 'Child_pass_1')).token);
      for (const sn of [SN, ...BULK]) devices.push(await RawDevice.enrol(ts.server.deviceSocketUrl, sn, ts.server.seeded.enrollKey));
    });

    afterAll(async () => {
      adminConsole?.stop();
      for (const d of devices) d.ws.close();
      await ts?.stop();
    });

    it('a factory reset waits for a second account\'s approval', async () => {
      const device = devices[0];
      if (!device) throw new Error('no device');
      // From the console socket: answered result 7 with the request, the device hears nothing.
      const reply = (await lastValueFrom(adminConsole.request(Command.FactoryReset, { sn: SN, data: {} }))).reply;
      expect(reply.result).toBe(Result.AwaitingApproval);
      const waiting = reply.data as { key: string; approvalId: number; message: string };
      expect(waiting).toMatchObject({ key: 'approval.pending', message: `Waiting for approval by another account (request ${waiting.approvalId})` });
      await device.synced();
      expect(device.got.map((e) => e.msgId)).toEqual([]);
      const id = waiting.approvalId;

      // The approver counts and lists it; the requester sees its own, pending, and cannot decide it.
      expect(await approver.ok<ApprovalCount>('POST', '/approval/count')).toEqual({ toDecide: 1, mine: 0 });
      const listed = await approver.ok<Page<ApprovalView>>('POST', '/approval/list', { state: 'pending', pageNum: 1, pageSize: 10 });
      expect(listed.list[0]).toMatchObject({ id, requester: 'admin', kind: 'command', msgId: Command.FactoryReset, targets: [SN], state: 'pending', canDecide: true, source: 'console' });
      const mine = await admin.ok<Page<ApprovalView>>('POST', '/approval/list', { mine: true, pageNum: 1, pageSize: 10 });
      expect(mine.list[0]).toMatchObject({ id, state: 'pending', canDecide: false });

      // Self-approval is refused (the requester holds the approve key: it is the admin).
      expect(await admin.call('POST', `/approval/${id}/approve`)).toMatchObject({ code: 40003, key: 'approval.selfApproval' });
      // An approver whose scope does not reach the device is refused.
      const refused = await outsider.call('POST', `/approval/${id}/approve`);
      expect(refused.code).not.toBe(20000);
      await device.synced();
      expect(device.got.map((e) => e.msgId)).toEqual([]);

      // The second account approves: the device receives the factory reset.
      const received = device.next((e) => e.msgId === Command.FactoryReset && e.result === undefined);
      const approved = await approver.ok<ApprovalView>('POST', `/approval/${id}/approve`);
      expect(approved).toMatchObject({ id, state: 'approved', decidedBy: 'feapprover' });
      await received;
      expect(device.got.map((e) => e.msgId)).toEqual([Command.FactoryReset]);
      // Approved once: a second approval is refused and sends nothing more.
      expect(await approver.call('POST', `/approval/${id}/approve`)).toMatchObject({ key: 'approval.notPending' });
      await expect.poll(async () => (await admin.ok<Page<ApprovalView>>('POST', '/approval/list', { mine: true, pageNum: 1, pageSize: 10 })).list[0]?.outcome, { timeout: 10_000 }).toMatchObject({ list: [{ sn: SN, result: Result.Success }] });

      // Timeline: requested (by the requester), approved (by the approver), then the command itself, sent as the requester.
      await expect.poll(async () => (await timeline(SN)).total, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      const entries = (await timeline(SN)).list;
      expect(entries.filter((e) => e.source === 'approval').map((e) => [e.account, e.result])).toEqual(
        expect.arrayContaining([
          ['admin', Result.AwaitingApproval],
          ['feapprover', Result.Success],
        ]),
      );
      expect(entries.find((e) => e.source === 'console')).toMatchObject({ account: 'admin', msgId: Command.FactoryReset, result: Result.Success });

      // Operation log: the approval, by the approver, naming the request; the refused self-approval too.
      await expect
        .poll(async () => (await admin.ok<Page<OperationLogEntry>>('POST', '/operation-log/list', { path: '/approval/:id/approve', pageNum: 1, pageSize: 20 })).list.map((e) => [e.account, e.code]), { timeout: 10_000 })
        .toEqual(expect.arrayContaining([['feapprover', 20000], ['admin', 40003]]));
      const log = (await admin.ok<Page<OperationLogEntry>>('POST', '/operation-log/list', { path: '/approval/:id/approve', pageNum: 1, pageSize: 20 })).list.find((e) => e.account === 'feapprover' && e.code === 20000);
      expect(log).toMatchObject({ target: String(id), targetName: `admin: ${Command.FactoryReset} → ${SN}` });
    });

    it('a factory reset over REST waits as well, and a rejection never reaches the device', async () => {
      const device = devices[0];
      if (!device) throw new Error('no device');
      const before = device.got.length;
      const reply = await admin.ok<DeviceCommandReply>('POST', '/device-ops/command', { sn: SN, msgId: Command.FactoryReset });
      expect(reply).toMatchObject({ delivered: false, result: Result.AwaitingApproval, approval: { state: 'pending', source: 'rest' } });
      const id = reply.approval?.id ?? 0;
      expect(await approver.ok<ApprovalView>('POST', `/approval/${id}/reject`, { reason: 'not today' })).toMatchObject({ state: 'rejected', reason: 'not today' });
      expect(await approver.call('POST', `/approval/${id}/approve`)).toMatchObject({ key: 'approval.notPending' });
      await device.synced();
      expect(device.got.length).toBe(before);
      await expect.poll(async () => (await timeline(SN)).list.some((e) => e.source === 'approval' && e.message === 'rejected: not today'), { timeout: 10_000 }).toBe(true);
    });

    it('a bulk command over the threshold (20 devices) waits; approved, every device receives it as a bulk command', async () => {
      const reply = await admin.ok<DeviceBulkCommandReply>('POST', '/device-ops/bulk', { sns: BULK, msgId: Command.Reboot });
      expect(reply.list).toEqual([]);
      expect(reply.approval).toMatchObject({ kind: 'bulk', targetCount: 21, state: 'pending' });
      const bulkDevices = devices.slice(1);
      await Promise.all(bulkDevices.map((d) => d.synced()));
      expect(bulkDevices.every((d) => d.got.length === 0)).toBe(true);
      // At the threshold it runs at once.
      const small = await admin.ok<DeviceBulkCommandReply>('POST', '/device-ops/bulk', { sns: BULK.slice(0, 20), msgId: Command.PushText, data: { text: 'hi' } });
      expect(small.approval).toBeUndefined();
      expect(small.list.every((r) => r.result === Result.Success)).toBe(true);

      const rebooted = Promise.all(bulkDevices.map((d) => d.next((e) => e.msgId === Command.Reboot && e.result === undefined)));
      await approver.ok('POST', `/approval/${reply.approval?.id ?? 0}/approve`);
      await rebooted;
      await expect.poll(async () => (await timeline(BULK[20] ?? '')).list.find((e) => e.msgId === Command.Reboot && e.source === 'bulk')?.account, { timeout: 10_000 }).toBe('admin');
    });

    it('the policy is the organisation\'s: wipes off runs a reset at once; a key-less caller cannot set it', async () => {
      const org = (await loginAsAdmin(ts)).orgId;
      expect(await approver.call('POST', '/approval/policy', { orgId: org, wipes: false, bulkOver: 20, campaignOver: 100, ttlMinutes: 60 })).toMatchObject({ code: 40003 });
      await admin.ok('POST', '/approval/policy', { orgId: org, wipes: false, bulkOver: 20, campaignOver: 100, ttlMinutes: 60 });
      expect(await admin.ok('GET', `/approval/policy/${org}`)).toEqual({ wipes: false, bulkOver: 20, campaignOver: 100, ttlMinutes: 60 });
      const reply = (await lastValueFrom(adminConsole.request(Command.ClearData, { sn: SN, data: {} }))).reply;
      expect(reply.result).toBe(Result.Success);
      await admin.ok('POST', '/approval/policy', { orgId: org, wipes: true, bulkOver: 20, campaignOver: 100, ttlMinutes: 60 });
    });

    it('a push over the campaign size waits in awaiting_approval; /push/approve refuses it; approved, it runs', async () => {
      const login = await loginAsAdmin(ts);
      await admin.ok('POST', '/approval/policy', { orgId: login.orgId, wipes: true, bulkOver: 20, campaignOver: 5, ttlMinutes: 60 });
      const contentId = await uploadFirmware(ts.server.url, login.token);
      await buyCoupons(ts.server.url, login.token, login.token, 50);
      const bulkDevices = devices.slice(1);
      const before = bulkDevices.map((d) => d.got.length);
      const started = await admin.ok<PushStarted>('POST', '/push/start', { kind: 'firmware', contentId, sns: BULK, confirmModelMismatch: true });
      expect(started.campaign.state).toBe('awaiting_approval');
      expect(started.approval).toMatchObject({ kind: 'campaign', campaignId: started.campaign.id, targetCount: 21, state: 'pending' });
      // The push's own second pair of eyes does not stand in for the four-eyes policy.
      expect(await approver.call('POST', '/push/approve', { id: started.campaign.id })).toMatchObject({ key: 'approval.useApprovals' });
      await Promise.all(bulkDevices.map((d) => d.synced()));
      expect(bulkDevices.map((d) => d.got.length)).toEqual(before);

      const pushed = Promise.all(bulkDevices.map((d) => d.next((e) => e.msgId === Command.PushFile && e.result === undefined)));
      await approver.ok('POST', `/approval/${started.approval?.id ?? 0}/approve`);
      await pushed;
      expect((await admin.ok<CampaignView>('GET', `/push/campaign/${started.campaign.id}`)).approvedBy).not.toBeNull();
      await admin.ok('POST', '/approval/policy', { orgId: login.orgId, wipes: true, bulkOver: 20, campaignOver: 100, ttlMinutes: 60 });
    });

    it('adding devices to a running push cannot take it over the campaign size: refused with its key, within it added', async () => {
      const login = await loginAsAdmin(ts);
      await admin.ok('POST', '/approval/policy', { orgId: login.orgId, wipes: true, bulkOver: 20, campaignOver: 5, ttlMinutes: 60 });
      const contentId = await uploadFirmware(ts.server.url, login.token);
      await buyCoupons(ts.server.url, login.token, login.token, 50);
      const started = await admin.ok<PushStarted>('POST', '/push/start', { kind: 'firmware', contentId, sns: BULK.slice(0, 3), confirmModelMismatch: true });
      expect(started.campaign.state).toBe('running');
      const id = started.campaign.id;
      // 3 + 3 = 6 > 5: refused, nothing added.
      const refused = await admin.call('POST', '/push/add-devices', { id, sns: BULK.slice(3, 6) });
      expect(refused).toMatchObject({ code: 40001, key: 'push.addOverApproval', params: { total: 6, limit: 5 } });
      expect(refused.message).toBe('Adding these devices makes the push 6 devices, over the 5 your organisation pushes without approval: start a new push for them instead (it waits for approval)');
      expect((await admin.ok<CampaignView>('GET', `/push/campaign/${id}`)).total).toBe(3);
      // Two additions at once, each within the size alone (serials already in the push do not count twice:
      // 3 known + 2 new = 5), together over it: exactly one is added.
      const both = await Promise.all([
        admin.call<{ added: number }>('POST', '/push/add-devices', { id, sns: [...BULK.slice(0, 3), ...BULK.slice(3, 5)] }),
        admin.call<{ added: number }>('POST', '/push/add-devices', { id, sns: BULK.slice(5, 7) }),
      ]);
      expect(both.filter((r) => r.code === 20000).map((r) => r.data)).toEqual([{ added: 2 }]);
      expect(both.filter((r) => r.code !== 20000)).toMatchObject([{ key: 'push.addOverApproval', params: { limit: 5 } }]);
      expect((await admin.ok<CampaignView>('GET', `/push/campaign/${id}`)).total).toBe(5);
      expect(await admin.call('POST', '/push/add-devices', { id, sns: [BULK[7] ?? ''] })).toMatchObject({ key: 'push.addOverApproval', params: { total: 6, limit: 5 } });
      // A size of 0 never waits, so nothing is refused either.
      await admin.ok('POST', '/approval/policy', { orgId: login.orgId, wipes: true, bulkOver: 20, campaignOver: 0, ttlMinutes: 60 });
      expect(await admin.ok<{ added: number }>('POST', '/push/add-devices', { id, sns: [BULK[7] ?? ''] })).toEqual({ added: 1 });
      await admin.ok('POST', '/push/cancel', { id });
      await admin.ok('POST', '/approval/policy', { orgId: login.orgId, wipes: true, bulkOver: 20, campaignOver: 100, ttlMinutes: 60 });
    });

    it('the requester\'s consoles hear live that its request was approved, rejected or expired; the approver\'s do not', async () => {
      const approverConsole = await openConsole(ts.server.url, await loginAs(ts, 'feapprover', 'Approver_pass_1'));
      const decided = (engine: ProtocolEngine) => {
        const events: ApprovalDecidedEvent[] = [];
        const sub = engine.messages$.pipe(filter((e) => e.msgId === Command.ApprovalDecided)).subscribe((e) => {
          const event = decodeRequest(Command.ApprovalDecided, e.data)?.data;
          if (event) events.push(event);
        });
        return { events, stop: () => sub.unsubscribe() };
      };
      const toAdmin = decided(adminConsole);
      const toApprover = decided(approverConsole);
      try {
        const ask = async (msgId: number) => (await admin.ok<DeviceCommandReply>('POST', '/device-ops/command', { sn: SN, msgId })).approval?.id ?? 0;
        const approvedId = await ask(Command.FactoryReset);
        await approver.ok('POST', `/approval/${approvedId}/approve`);
        await expect.poll(() => toAdmin.events.length, { timeout: 5_000 }).toBe(1);
        expect(toAdmin.events[0]).toEqual({ id: approvedId, state: 'approved', kind: 'command', msgId: Command.FactoryReset, targetCount: 1, decidedBy: 'feapprover', reason: '' });

        const rejectedId = await ask(Command.ClearData);
        await approver.ok('POST', `/approval/${rejectedId}/reject`, { reason: 'later' });
        await expect.poll(() => toAdmin.events.length, { timeout: 5_000 }).toBe(2);
        expect(toAdmin.events[1]).toMatchObject({ id: rejectedId, state: 'rejected', msgId: Command.ClearData, decidedBy: 'feapprover', reason: 'later' });

        const expiredId = await ask(Command.ClearData);
        await ts.server.db.updateTable('approval_requests').set({ expires_at: Date.now() - 1 }).where('id', '=', expiredId).execute();
        // Any list or decision expires what is overdue (the sweep does too, every minute).
        await approver.ok('POST', '/approval/list', { pageNum: 1, pageSize: 10 });
        await expect.poll(() => toAdmin.events.length, { timeout: 5_000 }).toBe(3);
        expect(toAdmin.events[2]).toMatchObject({ id: expiredId, state: 'expired', decidedBy: 'platform' });

        // Whatever the gateway wrote to the approver's socket before a heartbeat's answer has arrived: none of it.
        expect((await lastValueFrom(approverConsole.request(Command.Heartbeat, {}))).reply.result).toBe(Result.Success);
        expect(toApprover.events).toEqual([]);
      } finally {
        toAdmin.stop();
        toApprover.stop();
        approverConsole.stop();
      }
    });

    it('a request not decided in time expires', async () => {
      const reply = await admin.ok<DeviceCommandReply>('POST', '/device-ops/command', { sn: SN, msgId: Command.ClearData });
      const id = reply.approval?.id ?? 0;
      // Its expiry passed (set back in the database rather than waiting an hour).
      await ts.server.db.updateTable('approval_requests').set({ expires_at: Date.now() - 1 }).where('id', '=', id).execute();
      expect(await approver.call('POST', `/approval/${id}/approve`)).toMatchObject({ key: 'approval.expired' });
      const mine = await admin.ok<Page<ApprovalView>>('POST', '/approval/list', { mine: true, state: 'expired', pageNum: 1, pageSize: 10 });
      expect(mine.list.map((r) => r.id)).toContain(id);
    });
  });
}
