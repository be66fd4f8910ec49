import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { CLOSE_SLOW_ABOVE_BYTES, Peer, peerTraffic } from './peer.ts';

describe('a peer that stops reading', () => {
  it('is cut off once its unsent bytes pass the hard limit, instead of growing the gateway memory', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    await new Promise((r) => client.once('open', r));
    const clientClosed = new Promise<number>((resolve) => client.once('close', (code: number) => resolve(code)));
    // The client's process stops reading its socket: the server's queue can only grow.
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    const peer = new Peer(await accepted);
    const before = peerTraffic.slowClosed;

    const frame = new Uint8Array(1024 * 1024);
    let sent = 0;
    while (peer.sendRaw(frame)) {
      sent++;
      // Let the socket write what the kernel takes, as the event loop would between messages.
      await new Promise((r) => setImmediate(r));
      if (sent > 200) break;
    }
    expect(sent).toBeLessThan(200);
    expect(sent * frame.length).toBeGreaterThan(CLOSE_SLOW_ABOVE_BYTES);
    expect(peerTraffic.slowClosed).toBe(before + 1);
    // Later sends are refused without queueing.
    expect(peer.send({ msgId: 2 })).toBe(false);
    (client as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await clientClosed).toBe(1006);
    wss.close();
  });
});
