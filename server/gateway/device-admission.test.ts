import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeviceAdmissionGate, LOGIN_SLOT_MS } from './device-admission.ts';

const req = {} as IncomingMessage;

/** A socket that keeps what the gate answers on it. */
function socket(): { socket: PassThrough; answer: () => string } {
  const s = new PassThrough();
  let out = '';
  s.on('data', (b: Buffer) => (out += b.toString()));
  return { socket: s, answer: () => out };
}

describe('device admission: logins in flight, turned away at once', () => {
  afterEach(() => void vi.useRealTimers());

  it('turns a device away with 503 and Retry-After while as many logins as allowed are unanswered, and admits again once one is', async () => {
    const gate = new DeviceAdmissionGate({ perSecond: 0, maxInFlight: 2 });
    const first = await gate.admit(req, socket().socket);
    const second = await gate.admit(req, socket().socket);
    expect(gate.inFlight).toBe(2);
    const third = socket();
    expect(await gate.admit(req, third.socket)).toBeUndefined();
    await new Promise((r) => setImmediate(r));
    expect(third.answer()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\nRetry-After: 1\r\n/);
    expect(gate.refused).toBe(1);
    // Released twice (login answered, then the socket closed): one place back, not two.
    first?.release();
    first?.release();
    expect(gate.inFlight).toBe(1);
    expect(await gate.admit(req, socket().socket)).toBeDefined();
    expect(await gate.admit(req, socket().socket)).toBeUndefined();
    second?.release();
  });

  it('gives back the place of a device whose socket closes before its login, and leaves nothing on a socket whose login was answered', async () => {
    const gate = new DeviceAdmissionGate({ perSecond: 0, maxInFlight: 2 });
    const gone = socket().socket;
    await gate.admit(req, gone);
    const kept = socket().socket;
    const slot = await gate.admit(req, kept);
    expect(gate.inFlight).toBe(2);
    gone.destroy();
    await new Promise((r) => setImmediate(r));
    expect(gate.inFlight).toBe(1);
    slot?.release();
    expect(gate.inFlight).toBe(0);
    expect(kept.listenerCount('close')).toBe(socket().socket.listenerCount('close'));
  });

  it('gives back the place of a device that never logs in', async () => {
    vi.useFakeTimers();
    const gate = new DeviceAdmissionGate({ perSecond: 0, maxInFlight: 1 });
    await gate.admit(req, socket().socket);
    expect(gate.inFlight).toBe(1);
    vi.advanceTimersByTime(LOGIN_SLOT_MS);
    expect(gate.inFlight).toBe(0);
  });

  it('bounds nothing with 0', async () => {
    const gate = new DeviceAdmissionGate({ perSecond: 0, maxInFlight: 0 });
    for (let i = 0; i < 5_000; i++) expect(await gate.admit(req, socket().socket)).toBeDefined();
    expect(gate.refused).toBe(0);
  });
});

describe('device admission: a wait for a place before the 503', () => {
  afterEach(() => void vi.useRealTimers());
  /** Settles the gate's promises (it asks the rate limiter asynchronously). */
  const settle = () => vi.advanceTimersByTimeAsync(0);

  it('admits waiting upgrades in arrival order as places are given back, skipping sockets that closed while waiting', async () => {
    vi.useFakeTimers();
    // At one a second, three get through in the 3 s wait: three may wait.
    const gate = new DeviceAdmissionGate({ perSecond: 100, maxInFlight: 1, maxWaitMs: 3_000, initialPace: 1 }, () => Date.now());
    const first = await gate.admit(req, socket().socket);
    const order: string[] = [];
    const goneEnd = socket();
    const gone = goneEnd.socket;
    const waiting = [gate.admit(req, gone), gate.admit(req, socket().socket), gate.admit(req, socket().socket)].map((p, i) =>
      p.then((slot) => {
        order.push(`${i}:${slot ? 'admitted' : 'not admitted'}`);
        return slot;
      }),
    );
    await settle();
    expect(gate.waiting).toBe(3);
    expect(order).toEqual([]);
    gone.destroy();
    first?.release();
    await settle();
    // The closed socket is passed over, not admitted and not answered (its upgrade lets go of it); the
    // next one takes the place.
    expect(order).toEqual(['0:not admitted', '1:admitted']);
    expect(goneEnd.answer()).toBe('');
    (await waiting[1])?.release();
    await settle();
    expect(order).toEqual(['0:not admitted', '1:admitted', '2:admitted']);
    expect(gate.refused).toBe(0);
    expect(gate.waited).toBe(2);
    expect(gate.inFlight).toBe(1);
  });

  it('answers 503 to an upgrade that waited its whole wait, and at once to one that finds the wait full', async () => {
    vi.useFakeTimers();
    const gate = new DeviceAdmissionGate({ perSecond: 0, maxInFlight: 1, maxWaitMs: 2_000, initialPace: 0.5 }, () => Date.now());
    await gate.admit(req, socket().socket);
    const late = socket();
    let result: unknown = 'pending';
    void gate.admit(req, late.socket).then((slot) => (result = slot));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(result).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toBeUndefined();
    expect(late.answer()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\nRetry-After: 1\r\n/);
    // As many may wait as get through in the wait (one at half a second): the next is turned away at once.
    void gate.admit(req, socket().socket);
    const full = socket();
    expect(await gate.admit(req, full.socket)).toBeUndefined();
    await settle();
    // Its return is the next free one, two seconds after the first's at this pace: 3 s away.
    expect(full.answer()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\nRetry-After: 3\r\n/);
    expect(gate.refused).toBe(2);
  });

  it('holds what is past the rate until the next second instead of refusing it', async () => {
    vi.useFakeTimers();
    const gate = new DeviceAdmissionGate({ perSecond: 2, maxWaitMs: 2_000, initialPace: 2 }, () => Date.now());
    const admitted: number[] = [];
    for (let i = 0; i < 4; i++) void gate.admit(req, socket().socket).then((slot) => slot && admitted.push(i));
    await settle();
    expect(admitted).toEqual([0, 1]);
    expect(gate.waiting).toBe(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(admitted).toEqual([0, 1, 2, 3]);
    expect(gate.refused).toBe(0);
    // The first two were admitted without waiting for anything.
    expect(gate.waited).toBe(2);
  });
});

describe('device admission: waiting sockets that go away', () => {
  afterEach(() => void vi.useRealTimers());

  it('frees the place of a waiting socket reset by its device, and closes every waiting socket at shutdown', async () => {
    vi.useFakeTimers();
    const gate = new DeviceAdmissionGate({ perSecond: 100, maxInFlight: 1, maxWaitMs: 2_000, initialPace: 1 }, () => Date.now());
    await gate.admit(req, socket().socket);
    const reset = socket().socket;
    const first = gate.admit(req, reset);
    await vi.advanceTimersByTimeAsync(0);
    expect(gate.waiting).toBe(1);
    // At one a second two may wait in 2 s: with the reset one gone, two more are taken, not one.
    reset.destroy();
    expect(await first).toBeUndefined();
    expect(gate.waiting).toBe(0);
    const left = [socket(), socket()];
    const pending = left.map((l) => gate.admit(req, l.socket));
    await vi.advanceTimersByTimeAsync(0);
    expect(gate.waiting).toBe(2);
    expect(gate.refused).toBe(0);
    gate.close();
    expect(await Promise.all(pending)).toEqual([undefined, undefined]);
    expect(left.every((l) => l.socket.destroyed && l.answer() === '')).toBe(true);
    expect(gate.waiting).toBe(0);
  });
});

describe('device admission: returns given to refused devices', () => {
  afterEach(() => void vi.useRealTimers());

  it('gives each refused device the next free return at the pace the node admits, so a storm comes back spread', async () => {
    vi.useFakeTimers();
    // Until measured, a quarter of what the limits allow a second: 8 in flight, so 2 a second.
    const gate = new DeviceAdmissionGate({ perSecond: 0, maxInFlight: 8 }, () => Date.now());
    expect(gate.pace).toBe(2);
    for (let i = 0; i < 6; i++) await gate.admit(req, socket().socket);
    await gate.admit(req, socket().socket);
    await gate.admit(req, socket().socket);
    const refused = Array.from({ length: 5 }, () => socket());
    for (const r of refused) expect(await gate.admit(req, r.socket)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(0);
    // Two a second: 1, 1.5, 2, 2.5 and 3 s away, rounded up to whole seconds.
    expect(refused.map((r) => /Retry-After: (\d+)/.exec(r.answer())?.[1])).toEqual(['1', '2', '2', '3', '3']);
    // Later refusals queue behind the returns already given.
    vi.advanceTimersByTime(500);
    const later = socket();
    await gate.admit(req, later.socket);
    await vi.advanceTimersByTimeAsync(0);
    expect(later.answer()).toMatch(/Retry-After: 3\r\n/);
  });

  it('measures its pace only while full, and never gives a return later than five minutes', async () => {
    vi.useFakeTimers();
    const gate = new DeviceAdmissionGate({ perSecond: 0, maxInFlight: 1, initialPace: 1 }, () => Date.now());
    // Full for three seconds, admitting one device every 250 ms: four a second.
    for (let i = 0; i < 12; i++) {
      const slot = await gate.admit(req, socket().socket);
      expect(await gate.admit(req, socket().socket)).toBeUndefined();
      vi.advanceTimersByTime(250);
      slot?.release();
    }
    expect(gate.pace).toBeGreaterThan(3);
    expect(gate.pace).toBeLessThanOrEqual(4);
    // A quiet spell (one device in two seconds, never refused) leaves the pace as it was.
    const before = gate.pace;
    vi.advanceTimersByTime(2_000);
    (await gate.admit(req, socket().socket))?.release();
    expect(gate.pace).toBe(before);
    const slow = new DeviceAdmissionGate({ perSecond: 0, maxInFlight: 1, initialPace: 1 }, () => Date.now());
    await slow.admit(req, socket().socket);
    const returns: number[] = [];
    for (let i = 0; i < 400; i++) {
      const r = socket();
      await slow.admit(req, r.socket);
      await vi.advanceTimersByTimeAsync(0);
      returns.push(Number(/Retry-After: (\d+)/.exec(r.answer())?.[1]));
    }
    // One a second up to five minutes ahead; past that, spread over the five minutes, not all at their end.
    expect(returns.slice(0, 300)).toEqual(Array.from({ length: 300 }, (_, k) => k + 1));
    const past = returns.slice(300);
    expect(Math.max(...past)).toBeLessThanOrEqual(300);
    expect(new Set(past).size).toBeGreaterThan(20);
  });
});
