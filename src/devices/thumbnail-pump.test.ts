import { describe, expect, it } from 'vitest';
import { ThumbnailPump } from './thumbnail-pump.ts';

/** A pump on a hand-moved clock, whose fetches wait until the test answers them. */
function rig(opts: { maxInFlight?: number; maxTiles?: number; intervalMs?: number; shown?: () => boolean } = {}) {
  let now = 0;
  const timers: { at: number; run: () => void; id: number }[] = [];
  let nextId = 1;
  const asked: string[] = [];
  const pending = new Map<string, (b: Uint8Array | undefined) => void>();
  const revoked: string[] = [];
  let urls = 0;
  const pump = new ThumbnailPump({
    fetch: (sn) => {
      asked.push(sn);
      return new Promise((resolve) => pending.set(sn, resolve));
    },
    now: () => now,
    setTimer: (run, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimer: (id) => {
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
    toUrl: () => `blob:${++urls}`,
    revoke: (url) => revoked.push(url),
    intervalMs: opts.intervalMs ?? 10_000,
    maxInFlight: opts.maxInFlight ?? 2,
    maxTiles: opts.maxTiles ?? 24,
    retryMs: 60_000,
    ...(opts.shown ? { pageShown: opts.shown } : {}),
  });
  /** Answers a pending fetch with a picture of 100 bytes, or with a refusal. */
  const answer = async (sn: string, refuse = false) => {
    const resolve = pending.get(sn);
    if (!resolve) throw new Error(`no fetch of ${sn} pending`);
    pending.delete(sn);
    resolve(refuse ? undefined : new Uint8Array(100));
    await Promise.resolve();
    await Promise.resolve();
  };
  const advance = (ms: number) => {
    now += ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers.splice(timers.indexOf(due), 1);
      due.run();
    }
  };
  return { pump, asked, pending, answer, advance, revoked };
}

describe('wall thumbnails', () => {
  it('asks only visible online tiles, at most two at once', async () => {
    const r = rig();
    r.pump.setOnline(['A', 'B', 'C', 'D']);
    r.pump.setVisible('A', true, 0);
    r.pump.setVisible('B', true, 1);
    r.pump.setVisible('C', true, 2);
    r.pump.setVisible('E', true, 3); // offline: never asked
    expect(r.asked).toEqual(['A', 'B']);
    await r.answer('A');
    expect(r.asked).toEqual(['A', 'B', 'C']);
    expect(r.pump.url('A')).toBe('blob:1');
    await r.answer('B');
    await r.answer('C');
    // D is online but not on screen; E is on screen but offline.
    expect(r.asked).toEqual(['A', 'B', 'C']);
    expect(r.pump.bytes).toBe(300);
  });

  it('refreshes a tile once per interval, and not while it is off screen or the page is hidden', async () => {
    let shown = true;
    const r = rig({ shown: () => shown });
    r.pump.setOnline(['A']);
    r.pump.setVisible('A', true);
    await r.answer('A');
    r.advance(9_999);
    expect(r.asked).toEqual(['A']);
    r.advance(1);
    expect(r.asked).toEqual(['A', 'A']);
    await r.answer('A');
    // The old picture is let go when the new one arrives.
    expect(r.revoked).toEqual(['blob:1']);
    r.pump.setVisible('A', false);
    r.advance(60_000);
    expect(r.asked).toHaveLength(2);
    shown = false;
    r.pump.setVisible('A', true);
    r.advance(60_000);
    expect(r.asked).toHaveLength(2);
    shown = true;
    r.pump.pump();
    expect(r.asked).toHaveLength(3);
  });

  it('gives pictures to the first tiles in wall order only, and waits longer after a refusal', async () => {
    const r = rig({ maxTiles: 2, maxInFlight: 5 });
    r.pump.setVisible('C', true, 2);
    r.pump.setVisible('B', true, 1);
    r.pump.setVisible('A', true, 0);
    r.pump.setOnline(['A', 'B', 'C']);
    expect(r.asked).toEqual(['A', 'B']);
    const s = rig({ maxTiles: 1 });
    s.pump.setOnline(['X']);
    s.pump.setVisible('X', true);
    await s.answer('X', true);
    expect(s.pump.url('X')).toBeUndefined();
    s.advance(10_000);
    expect(s.asked).toEqual(['X']);
    s.advance(50_000);
    expect(s.asked).toEqual(['X', 'X']);
  });
});
