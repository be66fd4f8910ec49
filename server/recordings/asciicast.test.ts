import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { castEvents, CastWriter } from './asciicast.ts';

describe('asciicast v2 writer', () => {
  it('writes the header and timed o/i/r events; the output events concatenate to what was sent', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-'));
    const file = path.join(dir, 'a', 'rec.cast');
    let now = 1_700_000_000_000;
    const w = new CastWriter(file, { width: 80, height: 24, startedAt: now }, () => now);
    const sent = ['$ ', 'echo "hé"\r\n', 'hé\r\n', '\u001b[31mred\u001b[0m\r\n'];
    w.output(sent[0] ?? '');
    now += 1500;
    w.input('echo "hé"\r');
    for (const s of sent.slice(1)) w.output(s);
    now += 250;
    w.resize(120, 40);
    await w.close();
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.trim().split('\n');
    expect(JSON.parse(lines[0] ?? '')).toEqual({ version: 2, width: 80, height: 24, timestamp: 1_700_000_000 });
    expect(JSON.parse(lines[2] ?? '')).toEqual([1.5, 'i', 'echo "hé"\r']);
    expect(JSON.parse(lines.at(-1) ?? '')).toEqual([1.75, 'r', '120x40']);
    expect(castEvents(text, 'o').join('')).toBe(sent.join(''));
    expect(w.bytes).toBe(Buffer.byteLength(text));
    // A recording is never overwritten.
    await expect(new CastWriter(file, { width: 1, height: 1, startedAt: 0 }).close()).rejects.toThrow(/EEXIST/);
    expect(castEvents(fs.readFileSync(file, 'utf8'), 'o').join('')).toBe(sent.join(''));
  });
});
