import WebSocket from 'ws';

// The device end of the bench's bare ws relay baseline: sockets that send every frame straight back, as
// the bare echo server does, forked like the swarms so the relay's sockets are loopback hops to two other
// processes, as the gateway's are (console process, device process). As many sockets as the round trips
// cycle devices over: each relayed frame is then one frame on a socket of its own, as a command is.

const send = (reply: EchoDeviceReply) => process.send?.(reply);

/** What the bench asks the forked echo device. */
export type EchoDeviceRequest = { readonly kind: 'connect'; readonly url: string; readonly sockets: number };
export type EchoDeviceReply = { readonly kind: 'ready' } | { readonly kind: 'connected' };

const sockets: WebSocket[] = [];

process.on('message', (req: EchoDeviceRequest) => {
  let open = 0;
  for (let k = 0; k < req.sockets; k++) {
    const socket = new WebSocket(req.url, { perMessageDeflate: false });
    socket.on('message', (d: Buffer, isBinary: boolean) => socket.send(d, { binary: isBinary }));
    socket.once('open', () => {
      if (++open === req.sockets) send({ kind: 'connected' });
    });
    socket.on('error', (err) => {
      process.stderr.write(`echo device: ${String(err)}\n`);
      process.exit(1);
    });
    sockets.push(socket);
  }
});
const quit = () => {
  for (const socket of sockets) socket.close();
  process.exit(0);
};
process.on('disconnect', quit);
process.on('SIGTERM', quit);
send({ kind: 'ready' });
