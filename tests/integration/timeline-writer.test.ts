// The timeline's write-behind on both databases: every queued entry reaches the table exactly as it was
// recorded (text that needs quoting or escaping, a null and a set recording, large numbers), in the order
// the commands ended, across batches (full ones after the first reuse its compiled statement); a failed
// batch is logged and dropped, and the next one is written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Result } from '../../protocol/index.ts';
import { type Db, openDatabase } from '../../server/db/database.ts';
import { TimelineWriter, type TimelineEvent } from '../../server/timeline/writer.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';

const targets = await dbTargets();

const event = (i: number, extra: Partial<TimelineEvent> = {}): TimelineEvent => ({
  orgId: 7,
  sn: `TW-${i % 3}`,
  account: 'alice',
  source: 'console',
  msgId: 100 + i,
  data: { n: i },
  result: Result.Success,
  reply: { message: `done ${i}` },
  at: 1_790_000_000_000 + i,
  durationMs: i / 3,
  ...extra,
});

for (const target of targets) {
  describe.skipIf(!target.available)(`timeline writer (${target.name})`, () => {
    let db: Db;
    let drop: (() => Promise<void>) | undefined;
    const warnings: string[] = [];
    const log = { warn: (_obj: object, msg: string) => void warnings.push(msg) };

    beforeAll(async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'timeline-writer-'));
      const pg = target.name === 'postgres' ? await freshPgSchema() : undefined;
      drop = pg?.drop;
      db = await openDatabase({ databaseUrl: pg ? TEST_PG_URL : undefined, dataDir, ...(pg ? { pgSchema: pg.schema } : {}) });
    });
    afterAll(async () => {
      await db?.destroy();
      await drop?.();
    });

    const rows = () => db.selectFrom('device_timeline').selectAll().orderBy('id').execute();

    it('writes every entry as recorded, in order, across batches', async () => {
      await db.deleteFrom('device_timeline').execute();
      const writer = new TimelineWriter(db, { log, maxRows: 4, flushMs: 60_000 });
      const awkward = `it's "quoted", {braced}, back\\slash, NULL, 中文, tab\there`;
      writer.record(event(0, { account: awkward, reply: { message: awkward }, recordingId: '7c1f0e1a-0000-4000-8000-000000000001' }));
      // Entry 6 is in the second full batch, written with the statement compiled for the first.
      for (let i = 1; i < 10; i++) writer.record(event(i, i === 6 ? { account: awkward, data: { note: awkward }, recordingId: '7c1f0e1a-0000-4000-8000-000000000006' } : {}));
      await writer.close();

      const got = await rows();
      expect(got.map((r) => r.msg_id)).toEqual(Array.from({ length: 10 }, (_, i) => 100 + i));
      expect(got[0]).toMatchObject({
        org_id: 7,
        sn: 'TW-0',
        sent_at: 1_790_000_000_000,
        account: awkward,
        source: 'console',
        params: 'n=0',
        result: Result.Success,
        message: awkward,
        duration_ms: 0,
        recording_id: '7c1f0e1a-0000-4000-8000-000000000001',
      });
      expect(got[5]).toMatchObject({ sn: 'TW-2', sent_at: 1_790_000_000_005, message: 'done 5', duration_ms: 2, recording_id: null });
      expect(got[6]).toMatchObject({ org_id: 7, sn: 'TW-0', sent_at: 1_790_000_000_006, account: awkward, source: 'console', msg_id: 106, params: `note=${awkward.slice(0, 40)}…`, message: 'done 6', duration_ms: 2, recording_id: '7c1f0e1a-0000-4000-8000-000000000006' });
      expect(got[9]).toMatchObject({ sn: 'TW-0', msg_id: 109, message: 'done 9', duration_ms: 3, recording_id: null });
      expect(writer.size).toBe(0);
    });

    it('drops a batch that fails, logs it, and writes the next', async () => {
      await db.deleteFrom('device_timeline').execute();
      warnings.length = 0;
      const writer = new TimelineWriter(db, { log, flushMs: 60_000 });
      // A NaN organisation breaks the NOT NULL integer column on both databases.
      writer.record(event(1, { orgId: Number.NaN }));
      await writer.flush();
      expect(warnings).toEqual(['writing timeline entries failed']);
      writer.record(event(2));
      await writer.close();
      expect((await rows()).map((r) => r.msg_id)).toEqual([102]);
    });
  });
}
