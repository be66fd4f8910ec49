import { lastValueFrom } from 'rxjs';
import WebSocket from 'ws';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, fileFromDevice, lastFileEvent, ProtocolEngine, uploadToDevice } from '../../protocol/index.ts';
import type { TransferReply, TransferRequest } from './transfer-messages.ts';

// The console end of the gateway bench's file transfers, forked as the round-trip client is: a console
// is a browser elsewhere, so its chunk encoding, CRC and SHA-256 (and the garbage they leave) must not
// run on the gateway's event loop and be counted as the gateway's. Its baseline, a bare ws connection
// into the bench process, takes the same process hop.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const send = (reply: TransferReply) => process.send?.(reply);
let engine: ProtocolEngine | undefined;

async function connectConsole(url: string): Promise<void> {
  engine = new ProtocolEngine({ url: () => url, transport: wsTransport() });
  engine.start();
  while ((await lastValueFrom(engine.request(Command.Heartbeat)).catch(() => undefined)) === undefined) await sleep(50);
}

const patterns = new Map<number, Uint8Array>();
/** The file uploaded: a byte pattern, made once per size. */
function pattern(size: number): Uint8Array {
  let bytes = patterns.get(size);
  if (!bytes) {
    bytes = new Uint8Array(size);
    for (let k = 0; k < size; k++) bytes[k] = (k * 31) & 0xff;
    patterns.set(size, bytes);
  }
  return bytes;
}

async function transfer(sn: string, size: number): Promise<TransferReply> {
  const console = engine;
  if (!console) throw new Error('no console connection');
  const bytes = pattern(size);
  const cpu = process.cpuUsage();
  let t0 = performance.now();
  await lastFileEvent(uploadToDevice(console, { sn, dir: 'sdcard', name: 'bench.bin', bytes, timeoutMs: 120_000 }));
  const uploadMBs = size / 1e6 / ((performance.now() - t0) / 1_000);
  t0 = performance.now();
  const got = await lastFileEvent(fileFromDevice(console, { sn, msgId: Command.FileDownload, data: { path: 'sdcard/bench.bin' }, timeoutMs: 120_000 }));
  const downloadMBs = size / 1e6 / ((performance.now() - t0) / 1_000);
  if (got.kind !== 'done' || got.file?.bytes.length !== size) throw new Error('download did not bring the file back');
  const used = process.cpuUsage(cpu);
  return { kind: 'transferred', uploadMBs, downloadMBs, cpuMs: (used.user + used.system) / 1_000 };
}

/** Sends `size` bytes in 64 KiB frames; the server answers one text frame once it has them all. */
async function bulk(url: string, size: number): Promise<TransferReply> {
  const ws = new WebSocket(url);
  await new Promise((r) => ws.once('open', r));
  const chunk = new Uint8Array(64 * 1024);
  const t0 = performance.now();
  const done = new Promise((r) => ws.once('message', r));
  for (let sent = 0; sent < size; sent += chunk.length) ws.send(chunk);
  await done;
  const mbs = size / 1e6 / ((performance.now() - t0) / 1_000);
  ws.close();
  return { kind: 'bulked', mbs };
}

process.on('message', (req: TransferRequest) => {
  const done = req.kind === 'console' ? connectConsole(req.url).then(() => ({ kind: 'connected' }) as const) : req.kind === 'transfer' ? transfer(req.sn, req.bytes) : bulk(req.url, req.bytes);
  done.then(send, (err: unknown) => {
    process.stderr.write(`transfer client: ${String(err)}\n`);
    process.exit(1);
  });
});
const quit = () => {
  engine?.stop();
  process.exit(0);
};
process.on('disconnect', quit);
process.on('SIGTERM', quit);
send({ kind: 'ready' });
