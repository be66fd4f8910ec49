import path from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import type { EchoDeviceReply, EchoDeviceRequest } from './echo-device.ts';
import { forkBare, replyOf } from './bare-fleet.ts';
import { ForkedProcess } from './forked.ts';

// The round-trip baselines of the gateway bench, served by the bench's own process: the single-process
// node runs there too, and the node of workers beside it.

/** Baseline server: a bare ws echo in this process (where the gateway runs), measured from the forked client. */
export async function bareWsEchoServer(): Promise<{ url: string; close: () => void }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('connection', (ws) => ws.on('message', (d: Buffer) => ws.send(d.toString())));
  await new Promise((r) => wss.once('listening', r));
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, close: () => wss.close() };
}

/**
 * The relay baseline's device sockets. The round trips cycle over 2,000 devices, so at 5,000/s a device
 * socket carries a command every 0.4 s; over 500 sockets one every 0.1 s: either way each frame is read and
 * written alone (an event-loop turn here is well under a millisecond), and 500 fit in the file descriptors
 * the bench keeps in reserve beside its 19,000 devices.
 */
export const RELAY_DEVICE_SOCKETS = 500;

/**
 * Second baseline: a bare ws relay in this process (where the gateway runs) between the forked client and
 * `deviceSockets` sockets of one forked echoing process (bench/gateway/echo-device.ts): each frame from the
 * client goes to the next device socket in turn unchanged, and each frame from a device back to the client.
 * A gateway relays, so it does two sockets' reads and writes per command where the echo server does one;
 * and its commands cycle over many device sockets, each read and written for one command (no frames of
 * one socket to read or write together), so the relay's do too. This is the floor for what it does.
 */
export async function bareWsRelay(deviceSockets = RELAY_DEVICE_SOCKETS): Promise<{ url: string; close: () => void }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  const devices: WebSocket[] = [];
  let next = 0;
  let client: WebSocket | undefined;
  wss.on('connection', (ws, req) => {
    if (req.url === '/device') {
      devices.push(ws);
      ws.on('message', (d: Buffer, isBinary: boolean) => client?.send(d, { binary: isBinary }));
    } else {
      client = ws;
      ws.on('message', (d: Buffer, isBinary: boolean) => {
        devices[next]?.send(d, { binary: isBinary });
        next = (next + 1) % devices.length;
      });
    }
  });
  await new Promise((r) => wss.once('listening', r));
  const port = (wss.address() as { port: number }).port;
  const echoDevice = new ForkedProcess<EchoDeviceRequest, EchoDeviceReply>(path.resolve(import.meta.dirname, 'echo-device.ts'), {});
  await echoDevice.next('ready');
  await echoDevice.next('connected', { kind: 'connect', url: `ws://127.0.0.1:${port}/device`, sockets: deviceSockets });
  return {
    url: `ws://127.0.0.1:${port}/console`,
    close: () => {
      echoDevice.stop();
      wss.close();
    },
  };
}

/**
 * Baseline for broadcasts: a bare ws server process sends one frame of a push-text command's size to each
 * of `count` connections, held by a bare client process that sends every frame straight back, and times
 * until every frame is back; the second of two, as for the gateway. Both are forked (this process may not
 * have the file descriptors to spare); `block` is the clients' loopback source block, apart from the swarms'.
 */
export async function bareWsBroadcastMs(count: number, block: number): Promise<number> {
  const server = forkBare('bare-broadcaster', {});
  let clients: ReturnType<typeof forkBare> | undefined;
  try {
    const { port } = await replyOf(server, 'listening');
    clients = forkBare('bare-clients', { BARE_URL: `ws://127.0.0.1:${port}`, BARE_COUNT: String(count), BARE_FIRST_SOURCE: String(block), BARE_ECHO: '1' });
    await replyOf(clients, 'connected');
    const frame = JSON.stringify({ msgId: 65_549, cid: 'n1a2b3c', sn: 'SIMA00001', data: { title: 'bench', text: 'broadcast' } });
    const once = async () => {
      const answer = replyOf(server, 'broadcasted');
      server.send({ kind: 'broadcast', frame });
      return (await answer).ms;
    };
    await once();
    await new Promise((r) => setTimeout(r, 500));
    return await once();
  } finally {
    clients?.kill('SIGTERM');
    server.kill('SIGTERM');
  }
}
