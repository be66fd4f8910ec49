import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnlineState, systemClock } from '../../protocol/index.ts';
import { batchingPort } from '../../server/bus/ipc-bus.ts';
import { type Db, openDatabase } from '../../server/db/database.ts';
import { LoginWriteClient, type LoginWriteIpcMessage, LoginWriter, RelayedLoginRepository, serveLoginWrites } from '../../server/devices/login-writes.ts';
import { DeviceRepository } from '../../server/devices/repository.ts';
import { seed } from '../../server/seed.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';

const targets = await dbTargets();
const info = { model: 'M1', systemType: 'linux', systemVersion: '1', imageVersion: 'img', networkType: 1, details: { imei: '123', battery: 80 } };

/** A worker's repository and the primary's writer, joined by an in-memory channel batched per turn as the node's IPC. */
function node(db: Db) {
  const toPrimary = new Set<(m: unknown) => void>();
  const toWorker = new Set<(m: unknown) => void>();
  const wire = (out: Set<(m: unknown) => void>, inbox: Set<(m: unknown) => void>) => ({
    send: (m: unknown) => {
      for (const h of out) h(structuredClone(m));
    },
    listen: (h: (m: unknown) => void) => {
      inbox.add(h);
      return () => inbox.delete(h);
    },
  });
  const writer = new LoginWriter(db);
  serveLoginWrites(writer, batchingPort<LoginWriteIpcMessage>(wire(toWorker, toPrimary)));
  const client = new LoginWriteClient(batchingPort<LoginWriteIpcMessage>(wire(toPrimary, toWorker)));
  return { writer, devices: new RelayedLoginRepository(db, client) };
}

for (const target of targets) {
  describe.skipIf(!target.available)(`device logins written by the node's one writer (${target.name})`, () => {
    let db: Db;
    let orgId: number;
    let drop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      if (target.name === 'postgres') {
        const fresh = await freshPgSchema();
        drop = fresh.drop;
        db = await openDatabase({ databaseUrl: TEST_PG_URL, dataDir: '', pgSchema: fresh.schema });
      } else {
        db = await openDatabase({ dataDir: '', inMemory: true });
      }
      await seed(db, systemClock, 'Admin_pass_1');
      orgId = (await db.selectFrom('organisations').select('id').executeTakeFirstOrThrow()).id;
    });
    afterAll(async () => {
      await db.destroy();
      await drop?.();
    });

    it('applies the logins of many devices sent at once, each answered, the rows as the worker would have written them', async () => {
      const { devices, writer } = node(db);
      await Promise.all(Array.from({ length: 50 }, (_, i) => devices.register(`LW${i}`, orgId, `hash${i}`, info, 1_000 + i, 'w1')));
      await Promise.all(Array.from({ length: 50 }, (_, i) => devices.markOnline(`LW${i}`, { ...info, model: 'M2' }, 2_000 + i, 'w2')));
      await writer.idle();
      const rows = await db.selectFrom('devices').selectAll().where('sn', 'like', 'LW%').orderBy('sn').execute();
      expect(rows).toHaveLength(50);
      for (const row of rows) {
        expect(row).toMatchObject({ org_id: orgId, online_state: OnlineState.Online, node_id: 'w2', model: 'M2', imei: '123', battery: 80 });
      }
      expect(rows.find((r) => r.sn === 'LW7')?.latest_online_time).toBe(2_007);
    });

    it('fails only the write the database refuses when a batch holds one (a serial enrolled twice at once)', async () => {
      const { devices } = node(db);
      const results = await Promise.allSettled([devices.register('DUP1', orgId, 'a', info, 1, 'w1'), devices.register('DUP1', orgId, 'b', info, 1, 'w2'), devices.register('DUP2', orgId, 'c', info, 1, 'w1')]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const rows = await db.selectFrom('devices').select(['sn', 'secret_hash']).where('sn', 'in', ['DUP1', 'DUP2']).orderBy('sn').execute();
      expect(rows).toEqual([
        { sn: 'DUP1', secret_hash: 'a' },
        { sn: 'DUP2', secret_hash: 'c' },
      ]);
    });

    it('answers an offline write with whether it changed the row (a newer login keeps the device online)', async () => {
      const { devices } = node(db);
      await devices.register('OFF1', orgId, 'h', info, 100, 'w1');
      await devices.markOnline('OFF1', info, 200, 'w2');
      expect(await devices.markOffline('OFF1', 300, 100)).toBe(false);
      expect((await new DeviceRepository(db).findBySn('OFF1'))?.online_state).toBe(OnlineState.Online);
      expect(await devices.markOffline('OFF1', 300, 200)).toBe(true);
      expect((await new DeviceRepository(db).findBySn('OFF1'))?.online_state).toBe(OnlineState.Offline);
    });

    it("reads a device's route for commands from other processes: its organisation and whether it is online (routeOf)", async () => {
      const devices = new DeviceRepository(db);
      await devices.register('ROUTE1', orgId, 'hash', info, 5_000, 'w1');
      expect(await devices.routeOf('ROUTE1')).toEqual({ orgId, online: true });
      expect(await devices.markOffline('ROUTE1', 6_000, 5_000)).toBe(true);
      expect(await devices.routeOf('ROUTE1')).toEqual({ orgId, online: false });
      expect(await devices.routeOf('NO-SUCH-DEVICE')).toBeUndefined();
    });
  });
}
