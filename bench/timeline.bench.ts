import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Result } from '../protocol/index.ts';
import { openDatabase } from '../server/db/database.ts';
import { type TimelineEvent, TimelineWriter } from '../server/timeline/writer.ts';
import type { BenchRow } from './table.ts';

// Issue 21: the device timeline's writes, outside the gateway. Flushes of 1,250 entries (what 250 ms at
// 5,000 commands/s gathers) over 3,000 devices into a file database in WAL mode, as the gateway writes them.
const FLUSHES = Number(process.env.BENCH_TIMELINE_FLUSHES ?? 40);
const PER_FLUSH = 1_250;
const DEVICES = 3_000;
const WARMUP_FLUSHES = 4;

const event = (i: number): TimelineEvent => ({
  orgId: 1,
  sn: `BENCH-${String((i * 7_919) % DEVICES).padStart(6, '0')}`,
  account: 'admin',
  source: 'console',
  msgId: 1_000 + (i % 50),
  data: { n: i, path: '/sdcard' },
  result: Result.Success,
  reply: { message: i % 10 === 0 ? 'done' : undefined },
  at: 1_790_000_000_000 + i,
  durationMs: 0.4,
});

/** CPU of the whole process (every thread) and of this thread alone, in microseconds. */
function cpuNow(): { all: number; main: number } {
  const all = process.cpuUsage();
  const main = process.threadCpuUsage();
  return { all: all.user + all.system, main: main.user + main.system };
}

async function measureWriter(): Promise<{ all: number; main: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'timeline-bench-'));
  const db = await openDatabase({ dataDir });
  const writer = new TimelineWriter(db, { flushMs: 60_000, log: { warn: (obj, msg) => console.warn(msg, obj) } });
  let i = 0;
  const flushOnce = async () => {
    for (let k = 0; k < PER_FLUSH; k++) writer.record(event(i++));
    await writer.flush();
  };
  try {
    for (let f = 0; f < WARMUP_FLUSHES; f++) await flushOnce();
    const before = cpuNow();
    for (let f = 0; f < FLUSHES; f++) await flushOnce();
    const after = cpuNow();
    const n = FLUSHES * PER_FLUSH;
    return { all: (after.all - before.all) / n, main: (after.main - before.main) / n };
  } finally {
    await writer.close();
    await db.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The floor: SQLite's own work for the same rows, one prepared 500-row insert, no writer around it. */
function measureRawSqlite(): number {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'timeline-bench-raw-'));
  const db = new DatabaseSync(path.join(dataDir, 'raw.sqlite'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  db.exec(`create table t (id integer primary key autoincrement, org_id integer not null, sn text not null, sent_at bigint not null,
    account text not null, source text not null, msg_id integer not null, params text not null default '', result integer not null,
    message text not null default '', duration_ms integer not null, recording_id text); create index t_sn_time on t (sn, sent_at)`);
  const rows = 500;
  const insert = db.prepare(`insert into t (org_id, sn, sent_at, account, source, msg_id, params, result, message, duration_ms, recording_id) values ${Array(rows).fill('(?,?,?,?,?,?,?,?,?,?,?)').join(',')}`);
  let i = 0;
  const flushOnce = () => {
    for (let done = 0; done < PER_FLUSH; done += rows) {
      const values: (string | number | null)[] = [];
      for (let k = 0; k < rows; k++, i++) {
        const e = event(i);
        values.push(e.orgId, e.sn, e.at, e.account, e.source, e.msgId, `n=${i} path=/sdcard`, e.result, '', 0, null);
      }
      insert.run(...values);
    }
  };
  try {
    for (let f = 0; f < WARMUP_FLUSHES; f++) flushOnce();
    const before = cpuNow();
    for (let f = 0; f < FLUSHES; f++) flushOnce();
    return (cpuNow().all - before.all) / (FLUSHES * Math.ceil(PER_FLUSH / rows) * rows);
  } finally {
    db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runTimelineBench(): Promise<BenchRow[]> {
  const raw = measureRawSqlite();
  const ours = await measureWriter();
  return [
    {
      name: `timeline CPU per entry, whole process (${FLUSHES} flushes of ${PER_FLUSH.toLocaleString('en-US')} over ${DEVICES.toLocaleString('en-US')} devices, file database in WAL mode; baseline: SQLite's own insert of the same rows, prepared 500-row statement)`,
      value: ours.all,
      unit: 'us',
      baseline: raw,
    },
    { name: '  of which on the recording (main) thread', value: ours.main, unit: 'us', baseline: raw },
  ];
}
