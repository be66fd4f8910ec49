import WebSocket from 'ws';

// The device end of the bench's bare ws relay baseline: one socket that sends every frame straight back,
// as the bare echo server does, forked like the swarms so the relay's two sockets are loopback hops to
// two other processes, as the gateway's are (console process, device process).

const send = (reply: EchoDeviceReply) => process.send?.(reply);

/** What the bench asks the forked echo device. */
export type EchoDeviceRequest = { readonly kind: 'connect'; readonly url: string };
export type EchoDeviceReply = { readonly kind: 'ready' } | { readonly kind: 'connected' };

let ws: WebSocket | undefined;

process.on('message', (req: EchoDeviceRequest) => {
  const socket = new WebSocket(req.url, { perMessageDeflate: false });
  socket.on('message', (d: Buffer, isBinary: boolean) => socket.send(d, { binary: isBinary }));
  socket.once('open', () => send({ kind: 'connected' }));
  socket.on('error', (err) => {
    process.stderr.write(`echo device: ${String(err)}\n`);
    process.exit(1);
  });
  ws = socket;
});
const quit = () => {
  ws?.close();
  process.exit(0);
};
process.on('disconnect', quit);
process.on('SIGTERM', quit);
send({ kind: 'ready' });
