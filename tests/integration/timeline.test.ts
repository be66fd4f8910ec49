// The per-device action timeline (issue 22): every command that reaches a device is one entry of that
// device's timeline, with who sent it and by which route; a bulk command is one entry per device.
import { lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import type { DeviceBulkCommandReply } from '../../protocol/api/device-ops.ts';
import type { ApiTokenCreated } from '../../protocol/api/integrations.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { TimelineEntry } from '../../protocol/api/timeline.ts';
import { Command, type ProtocolEngine, Result, systemClock } from '../../protocol/index.ts';
import { client, type Client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAs, loginAsAdmin, openConsole, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();
const BULK = Array.from({ length: 10 }, (_, i) => `TL-${i}`);
const ONE = 'TL-X';

for (const target of targets) {
  describe.skipIf(!target.available)(`device timeline (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let operatorConsole: ProtocolEngine;
    const devices: DeviceSession[] = [];

    const timeline = (c: Client, sn: string, extra: object = {}) => c.ok<Page<TimelineEntry>>('POST', '/device/timeline', { sn, pageNum: 1, pageSize: 100, ...extra });
    /** Entries are written a moment after the command ends (in batches): wait for them to be there. */
    const entriesOf = async (sn: string, n: number) => {
      await expect.poll(async () => (await timeline(admin, sn)).total, { timeout: 10_000 }).toBeGreaterThanOrEqual(n);
      return (await timeline(admin, sn)).list;
    };

    beforeAll(async () => {
      ts = await startTestServer(target.name);
      admin = client(ts, (await loginAsAdmin(ts)).token);
      const role = await createRole(admin, 'timeline-operator', ['device_list', 'device_message', 'device_base_info']);
      await createAccount(admin, 'operatortl', 'Operator_pass_1', role);
      operatorConsole = await openConsole(ts.server.url, await loginAs(ts, 'operatortl', 'Operator_pass_1'));
      for (const sn of [...BULK, ONE]) {
        const device = createVirtualDevice({
          gatewayUrl: ts.server.deviceSocketUrl,
          sn,
          enrollKey: ts.server.seeded.enrollKey,
          info: { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.10', networkType: 2 },
          transport: wsTransport(),
          clock: systemClock,
          rebootDownMs: 200,
        });
        device.start();
        devices.push(device);
      }
      await Promise.all(devices.map((d) => d.waitLoggedIn()));
    });

    afterAll(async () => {
      for (const d of devices) d.dispose();
      operatorConsole?.stop();
      await ts?.stop();
    });

    it('a bulk reboot of 10 devices is 10 entries, one on each device, source bulk', async () => {
      const reply = await admin.ok<DeviceBulkCommandReply>('POST', '/device-ops/bulk', { sns: BULK, msgId: Command.Reboot });
      expect(reply.list.map((r) => [r.sn, r.result])).toEqual(BULK.map((sn) => [sn, Result.Success]));
      for (const sn of BULK) {
        const list = await entriesOf(sn, 1);
        expect(list).toHaveLength(1);
        expect(list[0]).toMatchObject({ sn, account: 'admin', source: 'bulk', msgId: Command.Reboot, result: Result.Success, recordingId: null });
        expect(list[0]?.durationMs).toBeGreaterThanOrEqual(0);
      }
    });

    it('a console command and a REST command are one entry each, with their account and route', async () => {
      const sent = await lastValueFrom(operatorConsole.request(Command.PushText, { sn: ONE, data: { text: 'hello from the console' } }));
      expect(sent.reply.result).toBe(Result.Success);
      await admin.ok('POST', '/device-ops/command', { sn: ONE, msgId: Command.PushText, data: { text: 'hello over REST' } });
      const list = await entriesOf(ONE, 2);
      expect(list).toHaveLength(2);
      // Newest first.
      expect(list.map((e) => [e.account, e.source, e.msgId, e.result])).toEqual([
        ['admin', 'rest', Command.PushText, Result.Success],
        ['operatortl', 'console', Command.PushText, Result.Success],
      ]);
      // The parameters are summarised, not copied: free text is only its length.
      expect(list[1]?.params).toBe('text=(22)');
      // The time range filters.
      const newest = list[0]?.time ?? 0;
      expect((await timeline(admin, ONE, { from: newest })).list.map((e) => e.source)).toEqual(['rest']);
      expect((await timeline(admin, ONE, { to: newest - 1 })).list.every((e) => e.source !== 'rest')).toBe(true);
    });

    it('a caller with an API token is source api, under its account', async () => {
      const { token } = await admin.ok<ApiTokenCreated>('POST', '/api-token/create', { name: 'timeline-script', keys: ['device_list', 'device_message'] });
      const res = await fetch(`${ts.server.url}/device-ops/command`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sn: ONE, msgId: Command.PushText, data: { text: 'from a script' } }),
      });
      expect(((await res.json()) as { code: number }).code).toBe(20000);
      const list = await entriesOf(ONE, 3);
      expect(list[0]).toMatchObject({ account: 'admin', source: 'api', msgId: Command.PushText, result: Result.Success });
    });

    it('another organisation cannot read a device timeline, and a caller without the key cannot either', async () => {
      await createOrg(admin, { name: 'Timeline other org', account: 'tlother', password: 'Other_pass_1' });
      const other = client(ts, (await loginAs(ts, 'tlother', 'Other_pass_1')).token);
      const refused = await other.call('POST', '/device/timeline', { sn: ONE, pageNum: 1, pageSize: 10 });
      expect(refused.code).not.toBe(20000);
      expect(refused.data).toBeNull();
      const keyless = await createRole(admin, 'timeline-keyless', ['device_list']);
      await createAccount(admin, 'keylesstl', 'Keyless_pass_1', keyless);
      const noKey = client(ts, (await loginAs(ts, 'keylesstl', 'Keyless_pass_1')).token);
      expect((await noKey.call('POST', '/device/timeline', { sn: ONE, pageNum: 1, pageSize: 10 })).code).not.toBe(20000);
    });
  });
}
