import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceSession } from '../../agent/device-session.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, Result, systemClock } from '../../protocol/index.ts';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { type Db, openDatabase } from '../../server/db/database.ts';
import { HOUR_MS } from '../../server/reports/periods.ts';
import { DEFAULT_TELEMETRY, TelemetryIngest, telemetrySettingsFrom } from '../../server/telemetry/ingest.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();
const GIB = 1024 ** 3;
const DAY = 24 * HOUR_MS;

for (const target of targets) {
  describe.skipIf(!target.available)(`telemetry ingestion (${target.name})`, () => {
    let db: Db;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-telemetry-'));
      const pg = target.name === 'postgres' ? await freshPgSchema() : undefined;
      db = await openDatabase({ databaseUrl: pg ? TEST_PG_URL : undefined, dataDir, ...(pg ? { pgSchema: pg.schema } : {}) });
      const org = await db.insertInto('organisations').values({ parent_id: null, name: 'root', enroll_key: 'k', created_at: 0, expire_time: null, login_account_id: null }).returning('id').executeTakeFirstOrThrow();
      await db
        .insertInto('devices')
        .values(['T1', 'T2', 'T3'].map((sn, i) => ({ sn, org_id: org.id, secret_hash: 'x', model: i === 2 ? 'L1' : 'P8', system_type: 'android', system_version: '', image_version: '', created_at: 0 })))
        .execute();
      cleanup = async () => {
        await db.destroy();
        await pg?.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      };
    });
    afterAll(async () => cleanup?.());

    const orgId = async () => (await db.selectFrom('organisations').select('id').executeTakeFirstOrThrow()).id;

    it('batches uploads on the clock, coalesces them per device, rolls them up per hour and model, and keeps the latest state and location', async () => {
      const clock = new FakeClock(Date.UTC(2026, 5, 1, 10, 0, 0));
      const ingest = new TelemetryIngest({ db, clock, settings: { ...DEFAULT_TELEMETRY, flushAtSamples: 1_000 } });
      const o = await orgId();
      ingest.status({ sn: 'T1', orgId: o }, { cpu: 10, memUsed: 1 * GIB, memTotal: 4 * GIB });
      ingest.status({ sn: 'T1', orgId: o }, { cpu: 30, memUsed: 2 * GIB, memTotal: 4 * GIB });
      ingest.status({ sn: 'T2', orgId: o }, { cpu: 20, memUsed: 1 * GIB, memTotal: 2 * GIB });
      ingest.location({ sn: 'T1', orgId: o }, { lat: 23.1, lng: 113.2, country: 'CN', region: 'Guangdong' });
      // Nothing is written until the flush timer fires.
      expect(await db.selectFrom('telemetry_samples').selectAll().execute()).toHaveLength(0);
      clock.advance(DEFAULT_TELEMETRY.flushEveryMs);
      await ingest.flush();
      // T1's two uploads fell in one sampling interval: its latest (cpu 30) is the sample (coalescing,
      // docs/DECISIONS.md); both were absorbed.
      expect((await db.selectFrom('telemetry_samples').select(['sn', 'cpu']).orderBy('sn').execute()).map((r) => [r.sn, Number(r.cpu)])).toEqual([['T1', 30], ['T2', 20]]);
      expect(ingest.counts).toEqual({ absorbed: 3, samplesPersisted: 2 });
      const hourly = await db.selectFrom('telemetry_hourly').selectAll().where('org_id', '=', o).execute();
      expect(hourly.map((h) => ({ model: h.model, hour: Number(h.hour), device_hours: h.device_hours, samples: h.samples, cpu: Number(h.cpu_sum) }))).toEqual([
        { model: 'P8', hour: Date.UTC(2026, 5, 1, 10), device_hours: 2, samples: 2, cpu: 50 },
      ]);
      // Same hour again: samples add up, devices do not count twice.
      clock.advance(10 * 60_000);
      ingest.status({ sn: 'T1', orgId: o }, { cpu: 40, memUsed: 1 * GIB, memTotal: 4 * GIB });
      await ingest.flush();
      const again = await db.selectFrom('telemetry_hourly').selectAll().where('org_id', '=', o).execute();
      expect(again.map((h) => [h.device_hours, h.samples])).toEqual([[2, 3]]);
      const t1 = await db.selectFrom('device_telemetry').selectAll().where('sn', '=', 'T1').executeTakeFirstOrThrow();
      expect({ cpu: Number(t1.cpu), country: t1.country, region: t1.region, lat: Number(t1.lat) }).toEqual({ cpu: 40, country: 'CN', region: 'Guangdong', lat: 23.1 });
      await ingest.stop();
    });

    it('absorbs a flood in memory: the latest state is written each flush, samples at most once per sampling interval', async () => {
      const clock = new FakeClock(Date.UTC(2026, 5, 1, 11, 0, 0));
      const ingest = new TelemetryIngest({ db, clock, settings: { ...DEFAULT_TELEMETRY, sampleEveryMs: 10_000, flushEveryMs: 1_000 } });
      const o = await orgId();
      const before = Number((await db.selectFrom('telemetry_samples').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const latestCpu = async () => Number((await db.selectFrom('device_telemetry').select('cpu').where('sn', '=', 'T2').executeTakeFirstOrThrow()).cpu);
      // 20 s of 100 uploads a second from one device, flushed every second as the timer would.
      for (let second = 0; second < 20; second++) {
        for (let k = 0; k < 100; k++) ingest.status({ sn: 'T2', orgId: o }, { cpu: (second * 100 + k) % 80, memUsed: 1 * GIB, memTotal: 2 * GIB });
        await ingest.flush();
        expect(await latestCpu()).toBe((second * 100 + 99) % 80);
        clock.advance(1_000);
      }
      const after = Number((await db.selectFrom('telemetry_samples').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      // Sampled at 0 s and 10 s: two rows for 2,000 uploads.
      expect(after - before).toBe(2);
      expect(ingest.counts).toEqual({ absorbed: 2_000, samplesPersisted: 2 });
      await ingest.stop();
    });

    it('records a threshold crossing once, and again only after the load dropped', async () => {
      const clock = new FakeClock(Date.UTC(2026, 5, 2));
      const ingest = new TelemetryIngest({ db, clock, settings: telemetrySettingsFrom({ ABNORMAL_CPU_PERCENT: '80', ABNORMAL_MEMORY_PERCENT: '95' }) });
      const o = await orgId();
      const load = (cpu: number) => ingest.status({ sn: 'T3', orgId: o }, { cpu, memUsed: 1 * GIB, memTotal: 2 * GIB });
      for (const cpu of [50, 85, 90, 70, 81]) load(cpu);
      ingest.abnormal({ sn: 'T3', orgId: o }, { type: 'overheat', cpu: 60, memUsed: 1 * GIB, memTotal: 2 * GIB, time: clock.now() - 5 * DAY, detail: '72 C' });
      await ingest.flush();
      const rows = await db.selectFrom('abnormal_events').selectAll().where('sn', '=', 'T3').orderBy('id').execute();
      expect(rows.map((r) => [r.type, Number(r.cpu), Number(r.memory), r.model])).toEqual([
        ['cpu_high', 85, 50, 'L1'],
        ['cpu_high', 81, 50, 'L1'],
        ['overheat', 60, 50, 'L1'],
      ]);
      // A device clock days off is not trusted: the event is dated when it arrived.
      expect(Number(rows[2]?.time)).toBe(clock.now());
      await ingest.stop();
    });

    it('rejects invalid uploads and deletes data past its retention', async () => {
      const clock = new FakeClock(Date.UTC(2026, 5, 20));
      const ingest = new TelemetryIngest({ db, clock, settings: telemetrySettingsFrom({ TELEMETRY_RETENTION_DAYS: '7', REPORT_RETENTION_DAYS: '14' }) });
      const o = await orgId();
      expect(() => ingest.status({ sn: 'T1', orgId: o }, { cpu: -1, memUsed: 1, memTotal: 2 })).toThrow('invalid status upload');
      expect(() => ingest.location({ sn: 'T1', orgId: o }, { lat: 91, lng: 0, country: 'CN', region: '' })).toThrow('invalid location upload');
      expect(() => ingest.abnormal({ sn: 'T1', orgId: o }, { type: 'melted', cpu: 1, memUsed: 1, memTotal: 2 })).toThrow('invalid abnormal event');
      expect(() => telemetrySettingsFrom({ TELEMETRY_RETENTION_DAYS: '0' })).toThrow('TELEMETRY_RETENTION_DAYS');
      // Samples of 1 June are older than 7 days on 20 June; rollups and events of 1-2 June are older than 14.
      const deleted = await ingest.sweep();
      // 6 samples (3 + 2 + 1 above: uploads within one sampling interval are one sample), 3 hourly rollup
      // rows (P8 at 10:00 and 11:00 on 1 June, L1 on 2 June), 3 events and their 2 hourly counts (cpu_high
      // and overheat).
      expect(deleted).toBe(6 + 3 + 3 + 2);
      expect(await db.selectFrom('abnormal_hourly').selectAll().execute()).toHaveLength(0);
      expect(await db.selectFrom('telemetry_samples').selectAll().execute()).toHaveLength(0);
      expect(await db.selectFrom('abnormal_events').selectAll().execute()).toHaveLength(0);
      await ingest.stop();
    });
  });
}

describe('telemetry answers over the device socket', () => {
  let ts: TestServer;
  let device: DeviceSession;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    device = new DeviceSession({
      gatewayUrl: ts.server.deviceSocketUrl,
      sn: 'TELE-WIRE-1',
      enrollKey: ts.server.seeded.enrollKey,
      info: () => ({ model: 'L1 Gateway', systemType: 'linux', systemVersion: 'Linux 6.1', imageVersion: '1', networkType: 1 }),
      handlers: new Map(),
      transport: wsTransport(),
      clock: systemClock,
    });
    device.start();
    await device.waitLoggedIn();
  });
  afterAll(async () => {
    device?.dispose();
    await ts?.stop();
  });

  /** Sends a device-to-platform message with a cid, as a device that wants to know, and returns the reply. */
  const upload = async (msgId: number, data: unknown) => (await lastValueFrom(device.engine.request(msgId, { data }))).reply;
  const status = { cpu: 12, memUsed: GIB, memTotal: 4 * GIB };
  const proc = { pid: 42, name: 'kiosk', state: 'S', cpu: 3.5, memUsed: 64 * 1024 * 1024 };

  it('accepts runtime info whose processes are all valid', async () => {
    expect(await upload(Command.RuntimeInfo, { ...status, processes: [proc, { ...proc, pid: 43, state: 'R' }] })).toMatchObject({ result: Result.Success });
    expect(await upload(Command.RuntimeInfo, { ...status, processes: [] })).toMatchObject({ result: Result.Success });
  });

  it('refuses runtime info with an invalid process list with result 1 and a reason, as it refuses invalid status fields', async () => {
    const refused = { result: Result.Fail, data: { message: 'invalid runtime info' } };
    for (const processes of [
      [{ ...proc, state: 'Q' }],
      'none',
      undefined,
      [{ ...proc, cpu: 500 }],
      [{ ...proc, memUsed: -1 }],
      [{ ...proc, pid: 0 }],
      [{ ...proc, pid: 1.5 }],
      [{ ...proc, name: '' }],
      [{ ...proc, name: 'x'.repeat(257) }],
      [{ ...proc, cpu: Number.NaN }],
      [proc, null],
      Array.from({ length: 1_001 }, (_, i) => ({ ...proc, pid: i + 1 })),
    ]) {
      expect(await upload(Command.RuntimeInfo, { ...status, processes }), JSON.stringify(processes)?.slice(0, 60)).toMatchObject(refused);
    }
    expect(await upload(Command.RuntimeInfo, { ...status, cpu: 101, processes: [proc] })).toMatchObject(refused);
  });

  it('gives every refused upload a reason in data.message', async () => {
    expect(await upload(Command.StatusUpload, { ...status, cpu: -1 })).toMatchObject({ result: Result.Fail, data: { message: 'invalid status upload' } });
    expect(await upload(Command.LocationUpload, { lat: 91, lng: 0, country: 'CN', region: '' })).toMatchObject({ result: Result.Fail, data: { message: 'invalid location upload' } });
    expect(await upload(Command.AbnormalEvent, { ...status, type: 'melted' })).toMatchObject({ result: Result.Fail, data: { message: 'invalid abnormal event' } });
  });
});
