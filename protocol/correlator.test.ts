import { describe, expect, it } from 'vitest';
import { Correlator, type PendingHandlers } from './correlator.ts';
import type { Envelope } from './envelope.ts';
import { ConnectionLostError, RequestTimeoutError } from './errors.ts';
import { FakeClock } from './testing/fake-clock.ts';

/** Handlers that record what they heard. */
function recorder(): PendingHandlers & { heard: string[] } {
  const heard: string[] = [];
  return {
    heard,
    progress: (r: Envelope) => void heard.push(`progress ${r.result}`),
    result: (r: Envelope) => void heard.push(`result ${r.result}`),
    error: (e: Error) => void heard.push(`error ${e.name}`),
  };
}

describe('Correlator shared by many senders', () => {
  it('fails one request by id, leaving the others and their shared timeout', () => {
    const clock = new FakeClock(0);
    const c = new Correlator(clock);
    const a = recorder();
    const b = recorder();
    c.register('a', 1, 1_000, a);
    c.register('b', 1, 1_000, b);
    expect(c.fail('a', new ConnectionLostError())).toBe(true);
    expect(c.fail('a', new ConnectionLostError())).toBe(false);
    expect(a.heard).toEqual(['error ConnectionLostError']);
    clock.advance(1_000);
    expect(b.heard).toEqual([`error ${new RequestTimeoutError(1, 1_000).name}`]);
    expect(c.size).toBe(0);
  });

  it('arms one timer for many requests with the same timeout', () => {
    const clock = new FakeClock(0);
    const c = new Correlator(clock);
    const handlers = Array.from({ length: 1_000 }, () => recorder());
    handlers.forEach((h, i) => c.register(`c${i}`, 1, 5_000, h));
    expect(clock.pendingTimers).toBe(1);
    handlers.forEach((_, i) => i % 2 === 0 && c.resolve({ msgId: 1, cid: `c${i}`, result: 0 }));
    clock.advance(5_000);
    expect(handlers.filter((h) => h.heard[0] === 'result 0')).toHaveLength(500);
    expect(handlers.filter((h) => h.heard[0]?.startsWith('error'))).toHaveLength(500);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keepArmed: requests settling one after another share one timer, timeouts still fire, and failAll clears it', () => {
    const clock = new FakeClock(0);
    let armed = 0;
    const counting = { now: () => clock.now(), setTimeout: (fn: () => void, ms: number) => (armed++, clock.setTimeout(fn, ms)), clearTimeout: (h: unknown) => clock.clearTimeout(h) };
    const c = new Correlator(counting, { keepArmed: true });
    for (let i = 0; i < 1_000; i++) {
      const h = recorder();
      c.register(`c${i}`, 1, 5_000, h);
      expect(c.resolve({ msgId: 1, cid: `c${i}`, result: 0 })).toBe(true);
      expect(h.heard).toEqual(['result 0']);
      clock.advance(1);
    }
    expect(armed).toBe(1);
    expect(c.size).toBe(0);
    // The idle timer lapses; a later request still times out on time.
    const late = recorder();
    clock.advance(4_000);
    c.register('late', 1, 5_000, late);
    clock.advance(4_999);
    expect(late.heard).toEqual([]);
    clock.advance(1);
    expect(late.heard).toEqual([`error ${new RequestTimeoutError(1, 5_000).name}`]);
    expect(clock.pendingTimers).toBe(0);
    // Idle with its timer armed, failAll (a stop) leaves no timer behind.
    c.register('x', 1, 5_000, recorder());
    c.resolve({ msgId: 1, cid: 'x', result: 0 });
    expect(clock.pendingTimers).toBe(1);
    c.failAll(new ConnectionLostError());
    expect(clock.pendingTimers).toBe(0);
  });

  it('takes a reply only from the owner the request was registered with; another sender cannot settle it', () => {
    const clock = new FakeClock(0);
    const c = new Correlator(clock);
    const sentToB = recorder();
    const socketA = {};
    const socketB = {};
    c.register('x', 1, 1_000, sentToB, socketB);
    // Socket A answers, progress or final, with B's id: ignored, and B's request still waits.
    expect(c.resolve({ msgId: 1, cid: 'x', result: 6 }, socketA)).toBe(false);
    expect(c.resolve({ msgId: 1, cid: 'x', result: 0, data: 'forged' }, socketA)).toBe(false);
    expect(c.resolve({ msgId: 1, cid: 'x', result: 0 })).toBe(false);
    expect(sentToB.heard).toEqual([]);
    expect(c.has('x')).toBe(true);
    expect(c.resolve({ msgId: 1, cid: 'x', result: 0 }, socketB)).toBe(true);
    expect(sentToB.heard).toEqual(['result 0']);
  });
});
