import { lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { luhnCheckDigit } from '../../agent/simulator/identity.ts';
import { seededRandom } from '../../agent/simulator/prng.ts';
import { seedOf, simulatedLocation } from '../../agent/simulator/telemetry.ts';
import { Command, type DeviceView, type ProtocolEngine, Result, SUPPORT_FLAGS, type SystemInfoReply } from '../../protocol/index.ts';
import { locationText } from '../../server/telemetry/ingest.ts';
import { type Client, client } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { startTestFleet } from '../support/fleet.ts';
import { openAdminConsole, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();
const FLEET = 12;
type Page = { total: number; list: DeviceView[] };

/**
 * The device list's entity fields over real sockets: simulated devices report them at login and in their
 * status and location uploads, and what a console reads in a device's system-info tab (65613) finds that
 * device with the list's filters.
 */
for (const target of targets) {
  describe.skipIf(!target.available)(`device list fields of simulated devices (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let consoleEngine: ProtocolEngine;
    let fleet: Fleet;
    const list = async (body: object = {}) => admin.ok<Page>('POST', '/device/list', { pageSize: 100, ...body });
    const snsOf = async (body: object) => (await list(body)).list.map((d) => d.sn);
    const systemInfo = async (sn: string) => {
      const { reply } = await lastValueFrom(consoleEngine.request(Command.SystemInfo, { sn }));
      expect(reply.result).toBe(Result.Success);
      return reply.data as SystemInfoReply;
    };

    beforeAll(async () => {
      ts = await startTestServer(target.name);
      const opened = await openAdminConsole(ts.server);
      consoleEngine = opened.engine;
      admin = client(ts, opened.login.token);
      fleet = await startTestFleet(ts, { count: FLEET });
      // Batteries and places come with the uploads after login, written within a flush (a second).
      await vi.waitFor(
        async () => {
          const reported = (await list()).list.filter((d) => d.location !== '' && (d.systemType === 'linux' || d.battery !== null));
          if (reported.length !== FLEET) throw new Error(`${reported.length} of ${FLEET} devices have their uploads in the list`);
        },
        { timeout: 15_000, interval: 100 },
      );
    }, 30_000);
    afterAll(async () => {
      fleet?.stop();
      consoleEngine?.stop();
      await ts?.stop();
    });

    it('fills every field of the device entity, with a valid IMEI on each Android terminal', async () => {
      const rows = (await list()).list;
      expect(rows).toHaveLength(FLEET);
      const android = rows.filter((d) => d.systemType === 'android');
      // The fleet's seed gives both kinds (Linux terminals are mains powered: no battery, no IMEI).
      expect(android.length).toBeGreaterThan(0);
      expect(android.length).toBeLessThan(FLEET);
      for (const d of rows) {
        expect(d).toMatchObject({ manufacturer: expect.stringMatching(/\S/), wlanMac: expect.stringMatching(/^02(:[0-9a-f]{2}){5}$/), imageVersion: expect.stringMatching(/^\d{6}\.\d{2}$/) });
        expect(d.mcuVersion).toMatch(/^v\d\.\d\d$/);
        expect(d.hardwareId).not.toBe('');
        expect(d.terminalVersion).not.toBe('');
        expect(d.installDate).toBeGreaterThan(Date.UTC(2023, 0, 1) - 1);
        expect(d.uptime).toBeGreaterThanOrEqual(0);
        expect(d.storageTotal).toBeGreaterThan(0);
        expect(d.supportFlags.length).toBeGreaterThan(0);
        // The place of its location upload, the same every run for this serial.
        expect(d.location).toBe(locationText(simulatedLocation(seededRandom(seedOf(d.sn)))));
      }
      for (const d of android) {
        expect(d.imei).toMatch(/^\d{15}$/);
        expect(luhnCheckDigit(d.imei.slice(0, 14))).toBe(Number(d.imei[14]));
        expect(d.bluetoothMac).toMatch(/^02(:[0-9a-f]{2}){5}$/);
        expect(d.battery).toBeGreaterThanOrEqual(15);
        expect(d.battery).toBeLessThanOrEqual(100);
        expect(d.gnssModel).not.toBe('');
        expect(d.lteModel).not.toBe('');
        expect(d.basebandVersion).not.toBe('');
      }
    });

    it('finds a device by the IMEI and manufacturer its system-info tab shows, and its row says what the tab says', async () => {
      for (const row of (await list()).list) {
        const shown = await systemInfo(row.sn);
        expect(row).toMatchObject({ manufacturer: shown.manufacturer, wlanMac: shown.wlanMac, bluetoothMac: shown.bluetoothMac, imei: shown.imei ?? '' });
        expect(row.supportFlags).toEqual(SUPPORT_FLAGS.filter((f) => shown.support[f]));
        if (shown.imei) expect(await snsOf({ imei: shown.imei })).toEqual([row.sn]);
        const byMaker = await list({ manufacturer: shown.manufacturer });
        expect(byMaker.list.map((d) => d.sn)).toContain(row.sn);
        expect(byMaker.list.every((d) => d.manufacturer.toLowerCase().includes(shown.manufacturer.toLowerCase()))).toBe(true);
      }
    });

    it('filters by battery and sorts by it, unknown batteries last, and follows the battery of status uploads', async () => {
      const rows = (await list()).list;
      for (const d of rows.filter((r) => r.battery !== null)) {
        const battery = d.battery as number;
        expect(await snsOf({ batteryMax: battery })).toContain(d.sn);
        expect(await snsOf({ batteryMax: battery - 1 })).not.toContain(d.sn);
      }
      for (const sortOrder of ['asc', 'desc'] as const) {
        const sorted = (await list({ sortField: 'battery', sortOrder })).list.map((d) => d.battery);
        const known = sorted.filter((b): b is number => b !== null);
        expect(sorted).toEqual([...known, ...sorted.filter((b) => b === null)]);
        expect(known).toEqual([...known].sort((a, b) => (sortOrder === 'asc' ? a - b : b - a)));
      }
      // A status upload's battery reaches the list (the login's value is not kept for ever).
      const device = fleet.devices.find((d) => rows.find((r) => r.sn === d.sn)?.systemType === 'android');
      if (!device) throw new Error('no Android device in the fleet');
      device.engine.send({ msgId: Command.StatusUpload, data: { cpu: 12.5, memUsed: 1_000_000, memTotal: 4_000_000, battery: 3 } });
      await expect.poll(async () => (await list({ sn: device.sn })).list[0]?.battery, { timeout: 10_000 }).toBe(3);
      expect(await snsOf({ batteryMax: 3 })).toEqual([device.sn]);
      expect((await list({ sortField: 'battery', sortOrder: 'asc' })).list[0]?.sn).toBe(device.sn);
    });
  });
}
