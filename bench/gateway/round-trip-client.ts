import { lastValueFrom } from 'rxjs';
import WebSocket from 'ws';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, ProtocolEngine, Result } from '../../protocol/index.ts';
import type { ClientReply, ClientRequest } from './client-messages.ts';

// The measuring client of the gateway bench, forked so that its encoding, correlation and timers do not
// run on the server's event loop (a browser console would not either). The bare-ws baseline client runs
// here too, so both figures carry the same process hop.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const send = (reply: ClientReply) => process.send?.(reply);

let engine: ProtocolEngine | undefined;
/** The baselines' sockets: to the bare echo server, and to the bare relay in front of an echoing device. */
const bare = new Map<'bare' | 'relay', WebSocket>();
const bareWaiting = new Map<string, () => void>();

/**
 * Sends `rate` requests per second for `seconds` and returns sorted latencies in ms. What is owed follows
 * the clock, not the tick count, so a late timer on a busy machine sends a bigger batch instead of
 * quietly lowering the rate.
 */
async function paced(rate: number, seconds: number, one: () => Promise<void>): Promise<{ ms: number[]; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  const inflight: Promise<void>[] = [];
  const start = performance.now();
  const end = start + seconds * 1_000;
  let sent = 0;
  for (let now = start; now < end; now = performance.now()) {
    for (const owed = Math.floor(((now - start) / 1_000) * rate); sent < owed; sent++) {
      const t0 = performance.now();
      inflight.push(one().then(() => void ms.push(performance.now() - t0), () => void failed++));
    }
    await sleep(2);
  }
  await Promise.all(inflight);
  return { ms: ms.sort((a, b) => a - b), failed };
}

async function connectConsole(url: string): Promise<void> {
  engine = new ProtocolEngine({ url: () => url, transport: wsTransport() });
  engine.start();
  while ((await lastValueFrom(engine.request(Command.Heartbeat)).catch(() => undefined)) === undefined) await sleep(50);
}

async function connectBare(kind: 'bare' | 'relay', url: string): Promise<void> {
  const ws = new WebSocket(url);
  ws.on('message', (d: Buffer) => {
    const id = d.toString();
    bareWaiting.get(id)?.();
    bareWaiting.delete(id);
  });
  await new Promise((r) => ws.once('open', r));
  bare.set(kind, ws);
}

function roundTrip(req: Extract<ClientRequest, { kind: 'paced' }>): Promise<{ ms: number[]; failed: number }> {
  let n = 0;
  if (req.over !== 'console') {
    const ws = bare.get(req.over);
    if (!ws) throw new Error(`no ${req.over} connection`);
    // Ids unique across both baselines' runs: a late echo of one cannot settle the other's.
    const prefix = req.over === 'bare' ? 'e' : 'r';
    return paced(req.rate, req.seconds, () => {
      const id = `${prefix}${n++}`;
      return new Promise<void>((resolve) => {
        bareWaiting.set(id, resolve);
        ws.send(id);
      });
    });
  }
  const console = engine;
  if (!console) throw new Error('no console connection');
  return paced(req.rate, req.seconds, async () => void (await lastValueFrom(console.request(Command.BaseInfo, { sn: req.sns[n++ % req.sns.length] }))));
}

/** Every push sent at once over the console engine; done when the last reply (or error) is back. */
async function broadcast(sns: readonly string[]): Promise<{ ms: number; succeeded: number; failed: number }> {
  const console = engine;
  if (!console) throw new Error('no console connection');
  let succeeded = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    sns.map((sn) =>
      lastValueFrom(console.request(Command.PushText, { sn, data: { title: 'bench', text: 'broadcast' }, timeoutMs: 120_000 })).then(
        (event) => void (event.reply.result === Result.Success ? succeeded++ : failed++),
        () => void failed++,
      ),
    ),
  );
  return { ms: performance.now() - t0, succeeded, failed };
}

process.on('message', (req: ClientRequest) => {
  const done =
    req.kind === 'broadcast'
      ? broadcast(req.sns).then((r) => send({ kind: 'broadcasted', ...r }))
      : req.kind === 'console'
      ? connectConsole(req.url).then(() => send({ kind: 'connected' }))
      : req.kind === 'bare' || req.kind === 'relay'
        ? connectBare(req.kind, req.url).then(() => send({ kind: 'connected' }))
        : roundTrip(req).then((r) => send({ kind: 'latencies', ...r }));
  done.catch((err: unknown) => {
    process.stderr.write(`round-trip client: ${String(err)}\n`);
    process.exit(1);
  });
});
const quit = () => {
  engine?.stop();
  for (const ws of bare.values()) ws.close();
  process.exit(0);
};
process.on('disconnect', quit);
process.on('SIGTERM', quit);
send({ kind: 'ready' });
