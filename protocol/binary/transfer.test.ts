import fc from 'fast-check';
import { firstValueFrom, share } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ProtocolEngine } from '../engine.ts';
import { FakeClock } from '../testing/fake-clock.ts';
import { FakeNetwork } from '../testing/fake-transport.ts';
import { Relay } from '../testing/relay.ts';
import { isChunkFrame } from './chunk-frame.ts';
import type { TransferProgress } from './chunk-receiver.ts';
import { receiveFiles, sendFile } from './transfer.ts';

function pair() {
  const clock = new FakeClock();
  const netA = new FakeNetwork();
  const netB = new FakeNetwork();
  const a = new ProtocolEngine({ url: () => 'ws://a', transport: netA.factory, clock, random: () => 0.5, requestTimeoutMs: 600_000 });
  const b = new ProtocolEngine({ url: () => 'ws://b', transport: netB.factory, clock, random: () => 0.5, requestTimeoutMs: 600_000 });
  a.start();
  b.start();
  netA.last.accept();
  netB.last.accept();
  return { clock, netA, netB, a, b, relay: new Relay(netA, netB) };
}

// Relays until `done`; when nothing is on the wire, waits for the next send (SHA-256 runs off-thread).
async function run(relay: Relay, netA: FakeNetwork, netB: FakeNetwork, done: () => boolean, pass?: Parameters<Relay['step']>[0]) {
  while (!done()) {
    const next = Promise.race([netA.nextSend(), netB.nextSend()]);
    if (relay.step(pass) === 0) await next;
  }
}

describe('file transfer over the engine', () => {
  it('XFER-1 delivers the bytes whole and verified, with progress', async () => {
    const { a, b, relay, netA, netB } = pair();
    const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) % 251);
    const received = firstValueFrom(receiveFiles(b));
    let done = false;
    const steps: TransferProgress[] = [];
    sendFile(a, { flowId: 'up-1', bytes, chunkSize: 4096, window: 4 }).subscribe({ next: (p) => steps.push(p), complete: () => (done = true) });
    await run(relay, netA, netB, () => done);
    const file = await received;
    expect(file.bytes).toEqual(bytes);
    expect(steps.at(-1)).toMatchObject({ bytes: 100_000, total: 100_000 });
    expect(steps.map((p) => p.bytes)).toEqual([...steps.map((p) => p.bytes)].sort((x, y) => x - y));
  });

  it('XFER-3 resumes from the last acknowledged chunk after connections drop mid-transfer, and a sender that missed the final acknowledgement is told done', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 20_000 }), fc.array(fc.nat({ max: 30 }), { maxLength: 3 }), fc.boolean(), async (bytes, dropsAt, dropFinal) => {
        let dropFinalAck = dropFinal;
        const { a, b, netA, netB, clock, relay } = pair();
        let receivedCount = 0;
        const files = receiveFiles(b, { ackEvery: 2 }).pipe(share());
        files.subscribe(() => receivedCount++);
        const received = firstValueFrom(files);
        let done = false;
        const sub = sendFile(a, { flowId: 'up-2', bytes, chunkSize: 1000, window: 3 }).subscribe({ complete: () => (done = true) });
        let chunkFrames = 0;
        const drops = new Set(dropsAt);
        await run(relay, netA, netB, () => done, (f) => {
            // Drops hit chunk frames and, once, the final acknowledgement.
            const isFinalAck = typeof f === 'string' && f.includes('"done":true');
            if ((typeof f !== 'string' && isChunkFrame(f) && drops.has(chunkFrames++)) || (isFinalAck && dropFinalAck && !(dropFinalAck = false))) {
              // The link dies while this chunk is on the wire: both sides reconnect.
              netA.last.drop();
              netB.last.drop();
              clock.advance(30_000);
              netA.last.accept();
              netB.last.accept();
              return false;
            }
            return true;
        });
        sub.unsubscribe();
        expect(done).toBe(true);
        expect((await received).bytes).toEqual(bytes);
        expect(receivedCount).toBe(1);
      }),
      { numRuns: 1000 },
    );
  });

  it('XFER-4 a reply to a TransferBegin that outlived its request is not taken for an offer', () => {
    const { b, netB } = pair();
    const offers: string[] = [];
    const sub = receiveFiles(b, { accept: (m) => (offers.push(m.flowId), true) }).subscribe();
    const sentBefore = netB.last.sent.length;
    // As a gateway relays it after the requester's socket dropped: msgId 65621 with a result and an unknown cid.
    netB.last.deliver(JSON.stringify({ msgId: 65621, cid: 'gone-1', flowId: 'up-9', result: 0, data: { next: 3 } }));
    expect(offers).toEqual([]);
    expect(netB.last.sent.length).toBe(sentBefore);
    sub.unsubscribe();
  });
});
