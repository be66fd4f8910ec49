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

describe('device admission: logins in flight', () => {
  afterEach(() => void vi.useRealTimers());

  it('turns a device away with 503 and Retry-After while as many logins as allowed are unanswered, and admits again once one is', async () => {
    const gate = new DeviceAdmissionGate(0, 2);
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
    const gate = new DeviceAdmissionGate(0, 2);
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
    const gate = new DeviceAdmissionGate(0, 1);
    await gate.admit(req, socket().socket);
    expect(gate.inFlight).toBe(1);
    vi.advanceTimersByTime(LOGIN_SLOT_MS);
    expect(gate.inFlight).toBe(0);
  });

  it('bounds nothing with 0', async () => {
    const gate = new DeviceAdmissionGate(0, 0);
    for (let i = 0; i < 5_000; i++) expect(await gate.admit(req, socket().socket)).toBeDefined();
    expect(gate.refused).toBe(0);
  });
});
