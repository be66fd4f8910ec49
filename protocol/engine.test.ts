import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MALFORMED_REPLY } from './catalogue/command-map.ts';
import { Command } from './catalogue/commands.ts';
import { Result } from './catalogue/enums.ts';
import { CloseCode } from './close-codes.ts';
import { jsonCodec } from './codec.ts';
import type { ConnectionState } from './connection.ts';
import { ProtocolEngine, type RequestEvent } from './engine.ts';
import type { Envelope } from './envelope.ts';
import { ConnectionLostError, QueueOverflowError, RequestTimeoutError, TokenRejectedError } from './errors.ts';
import { FakeClock } from './testing/fake-clock.ts';
import { FakeNetwork } from './testing/fake-transport.ts';

function setup(random = () => 0.5) {
  const clock = new FakeClock();
  const net = new FakeNetwork();
  const states: ConnectionState[] = [];
  const engine = new ProtocolEngine({
    url: () => 'ws://test/websocket?token=t',
    transport: net.factory,
    clock,
    random,
    requestTimeoutMs: 5_000,
    jsessionId: () => 'sess-1',
  });
  engine.connection$.subscribe((s) => states.push(s));
  return { clock, net, engine, states };
}

function sentEnvelopes(frames: readonly (string | Uint8Array)[]): Envelope[] {
  return frames.map((f) => jsonCodec.decode(f));
}

describe('ProtocolEngine', () => {
  it('CORR-1 correlates a reply to its request and treats result 6 as progress', () => {
    const { net, engine } = setup();
    engine.start();
    net.last.accept();
    const events: RequestEvent[] = [];
    let completed = false;
    engine.request(Command.Reboot, { sn: 'D1' }).subscribe({ next: (e) => events.push(e), complete: () => (completed = true) });
    const [req] = sentEnvelopes(net.last.sent);
    expect(req).toMatchObject({ msgId: Command.Reboot, sn: 'D1', jsessionId: 'sess-1' });
    net.last.deliver(JSON.stringify({ msgId: Command.Reboot, cid: req?.cid, result: Result.Pushing }));
    net.last.deliver(JSON.stringify({ msgId: Command.Reboot, cid: req?.cid, result: Result.Success }));
    expect(events.map((e) => e.kind)).toEqual(['progress', 'result']);
    expect(completed).toBe(true);
    expect(engine.pendingCount).toBe(0);
  });

  it('WIRE-3 a reply is read by its command\'s decoder: typed data on success, result 2 for malformed data, a failure\'s reason kept', () => {
    const { net, engine } = setup();
    engine.start();
    net.last.accept();
    const finals: RequestEvent<typeof Command.FileList>[] = [];
    for (let i = 0; i < 3; i++) engine.request(Command.FileList, { sn: 'D1', data: { path: '' } }).subscribe((e) => finals.push(e));
    const cids = sentEnvelopes(net.last.sent).map((e) => e.cid);
    net.last.deliver(JSON.stringify({ msgId: Command.FileList, cid: cids[0], result: Result.Success, data: { path: '', entries: [{ name: 'a', type: 'file', size: 1, mtime: 2, extra: 'x' }] } }));
    net.last.deliver(JSON.stringify({ msgId: Command.FileList, cid: cids[1], result: Result.Success, data: { path: '', entries: 'none' } }));
    net.last.deliver(JSON.stringify({ msgId: Command.FileList, cid: cids[2], result: Result.Fail, data: { message: 'No such folder', secret: 1 } }));
    expect(finals.map((e) => e.reply)).toMatchObject([
      { result: Result.Success, data: { path: '', entries: [{ name: 'a', type: 'file', size: 1, mtime: 2 }] } },
      { result: Result.MessageError, data: { message: MALFORMED_REPLY } },
      { result: Result.Fail, data: { message: 'No such folder' } },
    ]);
    const first = finals[0]?.reply;
    if (first?.result === Result.Success) expect(first.data.entries[0]).not.toHaveProperty('extra');
    expect(finals[2]?.reply.data).not.toHaveProperty('secret');
  });

  it('CORR-2 fails a request at once when not connected', () => {
    const { engine } = setup();
    let error: unknown;
    engine.request(Command.Reboot).subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toBeInstanceOf(ConnectionLostError);
  });

  it('QUEUE-1 holds a queued request while disconnected and sends it once on reconnect', () => {
    const { net, engine, clock } = setup();
    engine.start();
    net.last.accept();
    net.last.drop();
    const events: RequestEvent[] = [];
    engine.request(Command.Reboot, { sn: 'D1', queue: true, timeoutMs: 60_000 }).subscribe((e) => events.push(e));
    expect(engine.queuedCount).toBe(1);
    clock.advance(30_000);
    expect(net.sockets).toHaveLength(2);
    net.last.accept();
    const [req] = sentEnvelopes(net.last.sent);
    expect(req).toMatchObject({ msgId: Command.Reboot, sn: 'D1' });
    net.last.deliver(JSON.stringify({ msgId: Command.Reboot, cid: req?.cid, result: Result.Success }));
    expect(events.map((e) => e.kind)).toEqual(['result']);
    expect(engine.queuedCount).toBe(0);
  });

  it('QUEUE-2 refuses to hold more than the queue bound, with a clear error', () => {
    const clock = new FakeClock();
    const net = new FakeNetwork();
    const engine = new ProtocolEngine({ url: () => 'ws://x', transport: net.factory, clock, maxQueued: 2 });
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i++) engine.request(Command.Reboot, { queue: true }).subscribe({ error: (e: unknown) => errors.push(e) });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(QueueOverflowError);
    expect(engine.queuedCount).toBe(2);
  });

  it('QUEUE-3 a held request that times out is never sent', () => {
    const { net, engine, clock } = setup();
    engine.start();
    let error: unknown;
    engine.request(Command.Reboot, { queue: true, timeoutMs: 1_000 }).subscribe({ error: (e: unknown) => (error = e) });
    clock.advance(1_000);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    net.last.accept();
    expect(net.last.sent).toEqual([]);
  });

  it('CORR-3 times out a request with a clear error and leaves nothing pending', () => {
    const { net, engine, clock } = setup();
    engine.start();
    net.last.accept();
    let error: unknown;
    engine.request(Command.Reboot).subscribe({ error: (e: unknown) => (error = e) });
    clock.advance(5_000);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(engine.pendingCount).toBe(0);
  });

  it('LIFE-2 backoff grows while attempts fail and starts again from the first window after a stable connection', () => {
    const { net, engine, clock, states } = setup(() => 0);
    engine.start();
    for (let i = 0; i < 3; i++) {
      net.last.drop();
      clock.advance(60_000);
    }
    const delays = () => states.filter((s) => s.status === 'backoff').map((s) => (s.status === 'backoff' ? s.delayMs : 0));
    // random() = 0 draws each window's end: 2-8 s, 2-16 s, 2-30 s.
    expect(delays()).toEqual([8_000, 16_000, 30_000]);
    net.last.accept();
    clock.advance(10_000); // stable for the stable period
    net.last.drop();
    expect(delays().at(-1)).toBe(4_000); // the first window again: 2-4 s
  });

  it('LIFE-2 a 503 with Retry-After is honoured instead of the backoff, with up to a second of jitter; the attempts still count', () => {
    const { net, engine, clock, states } = setup(() => 0.5);
    engine.start();
    net.last.refuse(40_000);
    const delays = () => states.filter((s) => s.status === 'backoff').map((s) => (s.status === 'backoff' ? s.delayMs : 0));
    expect(delays()).toEqual([40_500]);
    clock.advance(40_499);
    expect(net.sockets).toHaveLength(1);
    clock.advance(1);
    expect(net.sockets).toHaveLength(2);
    // A return sooner than the backoff is honoured too: the server booked it.
    net.last.refuse(1_000);
    clock.advance(1_500);
    expect(net.sockets).toHaveLength(3);
    // The next failure without one backs off as the third failed attempt: the window 2-30 s, drawn at half.
    net.last.drop();
    expect(delays()).toEqual([40_500, 1_500, 16_000]);
    // A server cannot silence a device for longer than five minutes.
    clock.advance(16_000);
    net.last.refuse(86_400_000);
    expect(delays().at(-1)).toBe(300_500);
  });

  it('LIFE-3 stops for good when the server rejects the token', () => {
    const { net, engine, clock, states } = setup();
    engine.start();
    net.last.accept();
    net.last.drop(CloseCode.Unauthorized, 'token invalid');
    clock.advance(10 * 60_000);
    expect(net.sockets).toHaveLength(1);
    expect(states.at(-1)).toEqual({ status: 'stopped', reason: 'rejected', closeCode: CloseCode.Unauthorized });
    // Requests after a rejection fail with the rejection, even when they ask to be held.
    let error: unknown;
    engine.request(Command.Reboot, { queue: true }).subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toBeInstanceOf(TokenRejectedError);
    expect(engine.queuedCount).toBe(0);
  });

  it('LIFE-1 sends a heartbeat each period and reconnects when the peer falls silent', () => {
    const { net, engine, clock } = setup();
    engine.start();
    net.last.accept();
    clock.advance(300_000);
    expect(sentEnvelopes(net.last.sent).map((e) => e.msgId)).toEqual([Command.Heartbeat]);
    clock.advance(30_000);
    expect(net.last.closed?.code).toBe(CloseCode.GoingAway);
    clock.advance(30_000);
    expect(net.sockets).toHaveLength(2);
  });

  it('CORR-4 for arbitrary interleavings, every request completes exactly once and nothing leaks', () => {
    type Step =
      | { op: 'request'; queue: boolean }
      | { op: 'reply'; pick: number; result: number }
      | { op: 'advance'; ms: number }
      | { op: 'drop' }
      | { op: 'accept' }
      | { op: 'unsubscribe'; pick: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ op: fc.constant('request' as const), queue: fc.boolean() }),
      fc.record({ op: fc.constant('reply' as const), pick: fc.nat(), result: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
      fc.constant<Step>({ op: 'drop' }),
      fc.constant<Step>({ op: 'accept' }),
      fc.record({ op: fc.constant('unsubscribe' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (steps, r) => {
        const { net, engine, clock, states } = setup(() => r);
        engine.start();
        const outcomes = new Map<number, string[]>();
        const subs: { id: number; cid: string | undefined; unsubscribe: () => void }[] = [];
        let n = 0;
        for (const s of steps) {
          const sock = net.last;
          switch (s.op) {
            case 'request': {
              const id = n++;
              outcomes.set(id, []);
              const before = sock.sent.length;
              const sub = engine.request(Command.Reboot, { queue: s.queue }).subscribe({
                next: (e) => e.kind === 'result' && outcomes.get(id)?.push('result'),
                error: () => outcomes.get(id)?.push('error'),
              });
              const frame = sock.sent[before];
              subs.push({ id, cid: frame === undefined ? undefined : jsonCodec.decode(frame).cid, unsubscribe: () => sub.unsubscribe() });
              break;
            }
            case 'reply': {
              const target = subs[s.pick % Math.max(1, subs.length)];
              if (target?.cid && !sock.closed) sock.deliver(JSON.stringify({ msgId: Command.Reboot, cid: target.cid, result: s.result }));
              break;
            }
            case 'advance':
              clock.advance(s.ms);
              break;
            case 'drop':
              sock.drop();
              break;
            case 'accept':
              if (!sock.closed && engine.pendingCount === 0) sock.accept();
              break;
            case 'unsubscribe': {
              const target = subs[s.pick % Math.max(1, subs.length)];
              target?.unsubscribe();
              outcomes.delete(target?.id ?? -1);
              break;
            }
          }
        }
        net.last.drop();
        engine.stop();
        for (const list of outcomes.values()) expect(list.length).toBe(1);
        // No request is ever sent twice, across all sockets.
        const sentCids = net.sockets.flatMap((sock) => sock.sent.map((f) => jsonCodec.decode(f).cid).filter((c) => c !== undefined));
        expect(new Set(sentCids).size).toBe(sentCids.length);
        expect(engine.queuedCount).toBe(0);
        expect(engine.pendingCount).toBe(0);
        for (const st of states) {
          if (st.status === 'backoff') {
            expect(st.delayMs).toBeGreaterThanOrEqual(2_000);
            expect(st.delayMs).toBeLessThanOrEqual(30_000);
          }
        }
        expect(clock.pendingTimers).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });
});
