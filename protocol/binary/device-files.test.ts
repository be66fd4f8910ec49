import fc from 'fast-check';
import { filter, lastValueFrom, merge, type Observable, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Command } from '../catalogue/commands.ts';
import { Result } from '../catalogue/enums.ts';
import { ProtocolEngine } from '../engine.ts';
import type { Envelope } from '../envelope.ts';
import { FakeClock } from '../testing/fake-clock.ts';
import { FakeNetwork } from '../testing/fake-transport.ts';
import { Relay } from '../testing/relay.ts';
import type { Frame } from '../transport.ts';
import { type DeviceFileEvent, fileFromDevice, FlowJobs, offerFileOnFlow, uploadToDevice } from './device-files.ts';
import { isChunkFrame } from './chunk-frame.ts';
import { sha256Hex } from './sha256.ts';
import { type ReceivedFile, receiveFiles } from './transfer.ts';

/**
 * A console engine (a) and a device engine (b) joined by a relay standing in for the gateway. Only the
 * console's socket drops: the device stays connected, as when an operator's network blips. Frames on the
 * wire when it drops are lost both ways, as the gateway drops a detached flow's traffic.
 */
function consoleAndDevice() {
  const clock = new FakeClock();
  const netA = new FakeNetwork();
  const netB = new FakeNetwork();
  const a = new ProtocolEngine({ url: () => 'ws://console', transport: netA.factory, clock, random: () => 0.5, requestTimeoutMs: 600_000 });
  const b = new ProtocolEngine({ url: () => 'ws://device', transport: netB.factory, clock, random: () => 0.5, requestTimeoutMs: 600_000 });
  a.start();
  b.start();
  netA.last.accept();
  netB.last.accept();
  return { clock, netA, netB, a, b, relay: new Relay(netA, netB) };
}

/**
 * The device side of DOPS-3/4 as an agent does it (agent/ops/device-handlers.ts): one job per flow; a
 * repeated request joins it. Stores uploads in `files`, serves downloads from it.
 */
function fakeDevice(b: ProtocolEngine, files: Map<string, Uint8Array>) {
  const jobs = new FlowJobs<{ result: 0 | 1; data: unknown }>();
  const uploads = new Map<string, (f: ReceivedFile) => void>();
  const progress = (req: Envelope, data: unknown) => {
    try {
      b.reply(req, Result.Pushing, data);
    } catch {
      // the device's own socket never drops in these tests
    }
  };
  const subs = [
    receiveFiles(b, { accept: (m) => uploads.has(m.flowId) }).subscribe((f) => uploads.get(f.flowId)?.(f)),
    b.messages$.pipe(filter((e) => e.result === undefined && e.flowId !== undefined)).subscribe((req) => {
      const flowId = req.flowId as string;
      const d = req.data as { path: string; name?: string };
      let outcome: Promise<{ result: 0 | 1; data: unknown }> | undefined;
      if (req.msgId === Command.FileUpload) {
        outcome = jobs.run(flowId, req, async (job) => {
          const received = new Promise<ReceivedFile>((resolve) => uploads.set(flowId, resolve));
          const again = job.rejoined$.subscribe(() => progress(job.request, { stage: 'ready' }));
          progress(job.request, { stage: 'ready' });
          const file = await received;
          again.unsubscribe();
          files.set(`${d.path}/${d.name ?? ''}`, file.bytes);
          return { result: Result.Success, data: { path: d.path, size: file.bytes.length, sha256: file.sha256 } };
        });
      } else if (req.msgId === Command.FileDownload) {
        outcome = jobs.run(flowId, req, async (job) => {
          const file = () => Promise.resolve({ name: d.path, mime: 'application/octet-stream', bytes: files.get(d.path) as Uint8Array });
          return { result: Result.Success, data: await offerFileOnFlow(b, job, { flowId, file, progress, chunkSize: 1000, window: 3 }) };
        });
      }
      void outcome?.then((o) => b.reply(req, o.result, o.data));
    }),
  ];
  return { jobs, stop: () => subs.forEach((s) => s.unsubscribe()) };
}

/**
 * Relays until the operation ends, dropping the console's socket when the frame numbered in `dropsAt`
 * passes (counting every frame either way): the frame and everything else on the wire are lost, the
 * console reconnects 30 s later (past its backoff).
 */
async function runWithDrops(env: ReturnType<typeof consoleAndDevice>, op: Observable<DeviceFileEvent>, dropsAt: readonly number[]) {
  const { relay, netA, netB, clock } = env;
  const events: DeviceFileEvent[] = [];
  let ended = false;
  let failure: unknown;
  op.subscribe({ next: (e) => events.push(e), complete: () => (ended = true), error: (err: unknown) => ((failure = err), (ended = true)) });
  const drops = new Set(dropsAt);
  let frames = 0;
  let dropNow = false;
  const pass = (_f: Frame) => {
    if (dropNow) return false;
    if (!drops.has(frames++)) return true;
    dropNow = true;
    return false;
  };
  let spins = 0;
  while (!ended) {
    if (++spins > 5000) throw new Error(`stuck; frames ${frames}, drops ${dropsAt.join(',')}, events ${JSON.stringify(events.map((e) => e.kind))}`);
    // With nothing to relay, wait for a send or a millisecond: SHA-256 runs in the thread pool (WebCrypto),
    // and on a loaded machine it took longer than 5000 setImmediate turns, which read as stuck. 5000 waits
    // of at least a millisecond are 5 s: only a real hang trips it.
    const next = Promise.race([netA.nextSend(), netB.nextSend(), new Promise<void>((r) => setTimeout(r, 1))]);
    const moved = relay.step(pass);
    if (dropNow) {
      dropNow = false;
      netA.last.drop();
      clock.advance(30_000);
      netA.last.accept();
      continue;
    }
    if (moved === 0) await next;
  }
  if (failure) throw failure;
  return events;
}

const bytesOf = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) % 251);

describe('XFER-4 device file operations resume after the console socket drops', () => {
  it('XFER-4 an upload arrives whole and verified, resuming from the device\'s next chunk, whatever frames the drops hit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12_000 }), fc.array(fc.nat({ max: 40 }), { maxLength: 3 }), async (size, dropsAt) => {
        const env = consoleAndDevice();
        const files = new Map<string, Uint8Array>();
        const device = fakeDevice(env.b, files);
        const bytes = bytesOf(size, size);
        // A small chunk size makes many chunks, so drops land mid-transfer.
        const events = await runWithDrops(env, uploadToDevice(env.a, { sn: 'D1', dir: 'sdcard', name: 'f.bin', bytes, flowId: 'up-x', chunkSize: 1000, window: 3 }), dropsAt);
        device.stop();
        const done = events.at(-1);
        expect(done?.kind).toBe('done');
        expect(done?.kind === 'done' && done.reply.result).toBe(Result.Success);
        expect(files.get('sdcard/f.bin')).toEqual(bytes);
        expect((done?.kind === 'done' && (done.reply.data as { sha256: string }).sha256) || '').toBe(await sha256Hex(bytes));
        // Every drop while the request was pending is shown as resuming, and progress never passes the total.
        for (const e of events) if (e.kind !== 'done') expect(e.bytes).toBeLessThanOrEqual(e.total);
      }),
      { numRuns: 150 },
    );
  });

  it('XFER-4 a download arrives whole and its SHA-256 matches the offer, whatever frames the drops hit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12_000 }), fc.array(fc.nat({ max: 40 }), { maxLength: 3 }), async (size, dropsAt) => {
        const env = consoleAndDevice();
        const bytes = bytesOf(size, 7);
        const device = fakeDevice(env.b, new Map([['sdcard/big.bin', bytes]]));
        const events = await runWithDrops(env, fileFromDevice(env.a, { sn: 'D1', msgId: Command.FileDownload, data: { path: 'sdcard/big.bin' }, flowId: 'dl-x' }), dropsAt);
        device.stop();
        const done = events.at(-1);
        expect(done?.kind === 'done' && done.reply.result).toBe(Result.Success);
        expect(done?.kind === 'done' && done.file?.bytes).toEqual(bytes);
        expect(done?.kind === 'done' && done.file?.sha256).toBe(await sha256Hex(bytes));
      }),
      { numRuns: 150 },
    );
  });

  it('XFER-4 a drop mid-upload shows resuming, then continues from the acknowledged bytes instead of from zero', async () => {
    const env = consoleAndDevice();
    const files = new Map<string, Uint8Array>();
    const device = fakeDevice(env.b, files);
    const bytes = bytesOf(20_000, 3);
    // 20 chunks of 1000 bytes; frame 24 is about chunk 10 (requests, replies and acknowledgements interleave).
    const events = await runWithDrops(env, uploadToDevice(env.a, { sn: 'D1', dir: 'sdcard', name: 'g.bin', bytes, flowId: 'up-y', chunkSize: 1000, window: 4 }), [24]);
    device.stop();
    const resumingAt = events.findIndex((e) => e.kind === 'resuming');
    const resuming = events[resumingAt] as Extract<DeviceFileEvent, { kind: 'resuming' }>;
    expect(resuming.bytes).toBeGreaterThan(0);
    expect(resuming.total).toBe(20_000);
    const after = events.slice(resumingAt + 1).filter((e) => e.kind === 'progress');
    expect(after.every((e) => e.bytes >= resuming.bytes)).toBe(true);
    expect(events.at(-1)?.kind === 'done' && (events.at(-1) as Extract<DeviceFileEvent, { kind: 'done' }>).reply.result).toBe(Result.Success);
    expect(files.get('sdcard/g.bin')).toEqual(bytes);
    // Only what was in flight went twice: at most one window more than the 20 chunks.
    const chunkFrames = env.netA.sockets.flatMap((s) => s.sent).filter((f) => typeof f !== 'string' && isChunkFrame(f)).length;
    expect(chunkFrames).toBeLessThanOrEqual(24);
  });

  it('XFER-4 a request on a finished flow gets the remembered outcome without running the job again', async () => {
    const jobs = new FlowJobs<string>();
    let runs = 0;
    const first = await jobs.run('f-1', { msgId: 1 }, () => Promise.resolve(`run ${++runs}`));
    const again = await jobs.run('f-1', { msgId: 1 }, () => Promise.resolve(`run ${++runs}`));
    expect([first, again, runs]).toEqual(['run 1', 'run 1', 1]);
  });

  it('XFER-4 a request on a running flow joins it: the job hears it and sends progress to the newest request', async () => {
    const jobs = new FlowJobs<string>();
    let finish: (v: string) => void = () => undefined;
    const heard: Envelope[] = [];
    const first = jobs.run('f-2', { msgId: 1, cid: 'old' }, (job) => {
      job.rejoined$.subscribe((r) => heard.push(job.request, r));
      return new Promise<string>((resolve) => (finish = resolve));
    });
    await Promise.resolve();
    const second = jobs.run('f-2', { msgId: 1, cid: 'new' }, () => Promise.resolve('never'));
    expect(jobs.running('f-2')).toBe(true);
    finish('written');
    expect(await lastValueFrom(merge(first, second).pipe(toArray()))).toEqual(['written', 'written']);
    expect(heard.map((e) => e.cid)).toEqual(['new', 'new']);
  });
});
