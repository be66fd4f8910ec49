import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CastWriter } from '../server/recordings/asciicast.ts';
import type { BenchRow } from './table.ts';

// The cost of recording one shell session on the gateway (issue 22): a busy minute of terminal output
// (a 2 KB screen redraw every 100 ms, as `top` or a build log gives, ANSI colours and UTF-8 included) and
// typing (a keystroke every 200 ms), written as asciicast v2 through CastWriter. Baseline: the same output
// bytes appended raw to a file, which any recording costs at least.
const MINUTE_MS = 60_000;
const REDRAW_MS = 100;
const KEY_MS = 200;
const SCREEN = `\u001b[H\u001b[2J${Array.from({ length: 24 }, (_, i) => `\u001b[3${i % 8}m${`pid ${1000 + i} cpu ${(i * 1.7).toFixed(1)}% 内存 `.padEnd(80, '·')}\u001b[0m\r\n`).join('')}`.slice(0, 2048);

async function minute(file: string, raw: boolean): Promise<{ cpuMs: number; bytes: number }> {
  let now = 1_700_000_000_000;
  const start = process.cpuUsage();
  let bytes: number;
  if (raw) {
    const out = fs.createWriteStream(file);
    let n = 0;
    for (let t = 0; t < MINUTE_MS; t += REDRAW_MS) {
      out.write(SCREEN);
      n += Buffer.byteLength(SCREEN);
    }
    await new Promise<void>((r) => out.end(r));
    bytes = n;
  } else {
    const w = new CastWriter(file, { width: 80, height: 24, startedAt: now }, () => now);
    for (let t = 0; t < MINUTE_MS; t += REDRAW_MS) {
      now += REDRAW_MS;
      w.output(SCREEN);
      if (t % KEY_MS === 0) w.input('j');
    }
    await w.close();
    bytes = w.bytes;
  }
  const used = process.cpuUsage(start);
  return { cpuMs: (used.user + used.system) / 1000, bytes };
}

export async function runRecordingBench(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rec-bench-'));
  try {
    // Warm-up, then the median of five minutes each.
    await minute(path.join(dir, 'w.cast'), false);
    const cast: { cpuMs: number; bytes: number }[] = [];
    const raw: { cpuMs: number; bytes: number }[] = [];
    for (let i = 0; i < 5; i++) {
      cast.push(await minute(path.join(dir, `c${i}.cast`), false));
      raw.push(await minute(path.join(dir, `r${i}.raw`), true));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    return [
      { name: 'gateway CPU per recorded shell minute (busy output)', value: median(cast.map((c) => c.cpuMs)), unit: 'ms', baseline: median(raw.map((r) => r.cpuMs)), target: '< 100 ms (0.2% of a core)' },
      { name: 'bytes per recorded shell minute (busy output)', value: median(cast.map((c) => c.bytes)) / 1024, unit: 'KiB', baseline: median(raw.map((r) => r.bytes)) / 1024 },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
