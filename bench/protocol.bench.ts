import { MessageChannel } from 'node:worker_threads';
import { Packr } from 'msgpackr';
import { first } from 'rxjs';
import { Command, encodeChunk, jsonCodec, msgpackCodec, ProtocolEngine, receiveFiles, Result, sendFile, Subprotocol, type Envelope } from '../protocol/index.ts';
import { Relay } from '../protocol/testing/relay.ts';
import { FakeClock } from '../protocol/testing/fake-clock.ts';
import { FakeNetwork } from '../protocol/testing/fake-transport.ts';
import type { BridgePort, FromWorker, ToWorker } from '../workers/bridge-protocol.ts';
import { EngineClient } from '../workers/engine-client.ts';
import { EngineHost } from '../workers/engine-host.ts';
import { type BenchRow, opsPerSecond } from './table.ts';

const BATCH = 10_000;

/** The message mix: mostly presence events, some replies and status payloads, as a busy console sees. */
function messageMix(n: number): Envelope[] {
  const out: Envelope[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % 10;
    if (k < 7) out.push({ msgId: Command.DevicePresence, sn: `SIM${String(i % 5000).padStart(5, '0')}`, data: { onlineState: 1 + (i % 2), time: 1_700_000_000_000 + i } });
    else if (k < 9) out.push({ msgId: Command.Reboot, cid: `x${i}`, sn: `SIM${i % 5000}`, result: Result.Success });
    else out.push({ msgId: Command.StatusUpload, sn: `SIM${i % 5000}`, data: { battery: i % 100, cpu: (i % 1000) / 10, mem: 512 + (i % 256), net: 2 } });
  }
  return out;
}

function engineThroughput(subprotocol: string, frames: readonly (string | Uint8Array)[]): number {
  const net = new FakeNetwork();
  const engine = new ProtocolEngine({ url: () => 'ws://bench', transport: net.factory, clock: new FakeClock(), subprotocols: [subprotocol as 'mdm.v1.json'] });
  let received = 0;
  engine.messages$.subscribe(() => received++);
  engine.start();
  net.last.accept(subprotocol);
  return opsPerSecond(() => {
    for (const f of frames) net.last.deliver(f);
    return frames.length;
  }) * (received > 0 ? 1 : 0);
}

function pendingRequestBytes(count: number, api: 'call' | 'observable'): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  const net = new FakeNetwork();
  const engine = new ProtocolEngine({ url: () => 'ws://bench', transport: net.factory, clock: new FakeClock(), requestTimeoutMs: 3_600_000 });
  engine.start();
  net.last.accept();
  // Sent frames are the transport's business, not the engine's: drop them so they are not counted.
  net.last.sent.length = 0;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const handles: (string | { unsubscribe(): void } | undefined)[] = new Array(count);
  const shared = { progress: () => undefined, result: () => undefined, error: () => undefined };
  for (let i = 0; i < count; i++) {
    handles[i] =
      api === 'call'
        ? engine.call(Command.Reboot, { sn: 'SIM00001' }, shared)
        : engine.request(Command.Reboot, { sn: 'SIM00001' }).subscribe({ error: () => undefined });
  }
  net.last.sent.length = 0;
  gc?.();
  const after = process.memoryUsage().heapUsed;
  if (engine.pendingCount !== count) throw new Error('pending count mismatch');
  for (const h of handles) {
    if (typeof h === 'string') engine.cancel(h);
    else h?.unsubscribe();
  }
  // The handles array itself (8 B a slot) is the caller's, not the engine's.
  return (after - before) / count - 8;
}

async function bridgeThroughput(batch: readonly Envelope[]): Promise<{ ours: number; raw: number }> {
  const frames = batch.map((e) => jsonCodec.encode(e));
  // Baseline: the same envelopes posted one by one over a bare MessageChannel.
  const raw = await new Promise<number>((resolve) => {
    const { port1, port2 } = new MessageChannel();
    let got = 0;
    const start = performance.now();
    port2.on('message', () => {
      if (++got === batch.length) {
        resolve((got / (performance.now() - start)) * 1_000);
        port1.close();
        port2.close();
      }
    });
    for (const e of batch) port1.postMessage(e);
  });
  const ours = await new Promise<number>((resolve) => {
    const { port1, port2 } = new MessageChannel();
    const net = new FakeNetwork();
    new EngineHost(port1 as unknown as BridgePort<ToWorker, FromWorker>, net.factory);
    const client = new EngineClient(port2 as unknown as BridgePort<FromWorker, ToWorker>);
    client.start('ws://bench');
    const wait = (): Promise<void> => (net.sockets.length ? Promise.resolve() : new Promise<void>((r) => setImmediate(r)).then(wait));
    void wait().then(() => {
      net.last.accept();
      let got = 0;
      let start = 0;
      client.batches$.subscribe((b) => {
        got += b.length;
        if (got >= frames.length) {
          resolve((got / (performance.now() - start)) * 1_000);
          // The worker's engine runs on real time: its heartbeat check re-arms a timer every few seconds
          // for as long as it lives, which kept this process waiting minutes after the table was printed.
          // Stop it, and close the ports only once the host has (the stop travels over the port).
          client.connection$.pipe(first((s) => s.status === 'stopped')).subscribe(() => {
            port1.close();
            port2.close();
          });
          client.stop();
        }
      });
      start = performance.now();
      for (const f of frames) net.last.deliver(f);
    });
  });
  return { ours, raw };
}

const MiB = 1024 * 1024;

/** Chunk frames decoded and CRC-checked by the engine, in MB/s; baseline: copying the same bytes. */
function chunkReceiveThroughput(): { ours: number; raw: number } {
  const payload = Uint8Array.from({ length: 64 * 1024 }, (_, i) => i & 0xff);
  const frames = Array.from({ length: 64 }, (_, seq) => encodeChunk({ flowId: 'bench', seq, timestamp: 0, flags: 0, payload }));
  const net = new FakeNetwork();
  const engine = new ProtocolEngine({ url: () => 'ws://bench', transport: net.factory, clock: new FakeClock() });
  let bytes = 0;
  engine.chunks$.subscribe((c) => (bytes += c.payload.length));
  engine.start();
  net.last.accept();
  const ours = opsPerSecond(() => {
    for (const f of frames) net.last.deliver(f);
    return frames.length;
  });
  const raw = opsPerSecond(() => {
    for (const f of frames) f.slice();
    return frames.length;
  });
  if (bytes === 0) throw new Error('no chunk arrived');
  return { ours: (ours * payload.length) / MiB, raw: (raw * payload.length) / MiB };
}

/** Replies matched per second while 100,000 requests are pending. */
function correlationThroughput(pending: number): number {
  const net = new FakeNetwork();
  const engine = new ProtocolEngine({ url: () => 'ws://bench', transport: net.factory, clock: new FakeClock(), requestTimeoutMs: 3_600_000 });
  engine.start();
  net.last.accept();
  const handlers = { progress: () => undefined, result: () => undefined, error: () => undefined };
  const cids: string[] = [];
  for (let i = 0; i < pending; i++) cids.push(engine.call(Command.Reboot, {}, handlers) ?? '');
  net.last.sent.length = 0;
  // Each round answers 10,000 pending requests and makes 10,000 new ones, so 100,000 stay pending.
  let next = 0;
  const replies = () => {
    const frames: string[] = [];
    for (let i = 0; i < 10_000; i++) frames.push(`{"msgId":${Command.Reboot},"cid":"${cids[(next + i) % cids.length] ?? ''}","result":0}`);
    return frames;
  };
  return opsPerSecond(() => {
    const frames = replies();
    for (const f of frames) net.last.deliver(f);
    for (let i = 0; i < 10_000; i++) cids[(next + i) % cids.length] = engine.call(Command.Reboot, {}, handlers) ?? '';
    next = (next + 10_000) % cids.length;
    net.last.sent.length = 0;
    if (engine.pendingCount !== pending) throw new Error(`pending ${engine.pendingCount}`);
    return frames.length;
  });
}

/** A whole file through sendFile -> relay -> receiveFiles, with acknowledgements and SHA-256. */
async function transferThroughput(size: number): Promise<number> {
  const clock = new FakeClock();
  const netA = new FakeNetwork();
  const netB = new FakeNetwork();
  const a = new ProtocolEngine({ url: () => 'ws://a', transport: netA.factory, clock });
  const b = new ProtocolEngine({ url: () => 'ws://b', transport: netB.factory, clock });
  a.start();
  b.start();
  netA.last.accept();
  netB.last.accept();
  const relay = new Relay(netA, netB);
  const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31) & 0xff);
  let done = false;
  receiveFiles(b).subscribe();
  const start = performance.now();
  sendFile(a, { flowId: 'bench', bytes }).subscribe({ complete: () => (done = true) });
  while (!done) {
    const next = Promise.race([netA.nextSend(), netB.nextSend()]);
    if (relay.step() === 0) await next;
  }
  return size / MiB / ((performance.now() - start) / 1_000);
}

/** Codec, engine, correlation and bridge throughput, each beside its raw baseline. */
export async function runProtocolBench(): Promise<BenchRow[]> {
  const mix = messageMix(BATCH);
  const jsonFrames = mix.map((e) => jsonCodec.encode(e) as string);
  const packr = new Packr({ useRecords: false, mapsAsObjects: true });
  const msgpackFrames = mix.map((e) => msgpackCodec.encode(e) as Uint8Array);

  const rawJson = opsPerSecond(() => {
    for (const f of jsonFrames) JSON.parse(f);
    return jsonFrames.length;
  });
  const rawMsgpack = opsPerSecond(() => {
    for (const f of msgpackFrames) packr.unpack(f);
    return msgpackFrames.length;
  });
  // Encoding as the gateway does for every message it sends (replies, presence, relayed commands).
  const encodeMsgpack = opsPerSecond(() => {
    for (const e of mix) msgpackCodec.encode(e);
    return mix.length;
  });
  const encodeJson = opsPerSecond(() => {
    for (const e of mix) jsonCodec.encode(e);
    return mix.length;
  });
  const engineJson = engineThroughput(Subprotocol.Json, jsonFrames);
  const engineMsgpack = engineThroughput(Subprotocol.Msgpack, msgpackFrames);
  const perPendingCall = pendingRequestBytes(100_000, 'call');
  const perPendingObservable = pendingRequestBytes(100_000, 'observable');
  const bridge = await bridgeThroughput(mix);
  const chunks = chunkReceiveThroughput();
  const correlation = correlationThroughput(100_000);
  const transfer = await transferThroughput(32 * MiB);
  return [
    { name: 'engine decode+dispatch, JSON', value: engineJson, unit: 'msg/s', baseline: rawJson, target: '>= 60% of JSON.parse' },
    { name: 'engine decode+dispatch, msgpack', value: engineMsgpack, unit: 'msg/s', baseline: rawMsgpack, target: '>= 60% of unpack, >= 1,000,000/s' },
    { name: 'codec encode, msgpack', value: encodeMsgpack, unit: 'msg/s', baseline: encodeJson, target: 'baseline: JSON encode' },
    { name: 'replies correlated with 100,000 pending (incl. new request each)', value: correlation, unit: 'msg/s', baseline: rawJson, target: 'baseline: JSON.parse alone' },
    { name: 'heap per pending request, call() (100,000 pending)', value: perPendingCall, unit: 'B', target: '< 300 B' },
    { name: 'heap per pending request, request() Observable', value: perPendingObservable, unit: 'B', target: 'includes the RxJS subscriber' },
    { name: 'worker bridge delivery (batched)', value: bridge.ours, unit: 'msg/s', baseline: bridge.raw, target: 'baseline: bare postMessage' },
    { name: 'chunk receive, 64 KiB chunks (decode + CRC-32)', value: chunks.ours, unit: 'MB/s', baseline: chunks.raw, target: 'baseline: copying the bytes' },
    { name: 'file transfer 32 MiB end to end (window, acks, SHA-256)', value: transfer, unit: 'MB/s' },
  ];
}
