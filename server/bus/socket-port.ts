import type net from 'node:net';
import { Packr, UnpackrStream } from 'msgpackr';
import { type BatchingPort, batchingPort, type IpcBatch } from './ipc-bus.ts';

const OPTIONS = { useRecords: false, mapsAsObjects: true } as const;
const packr = new Packr(OPTIONS);

/**
 * One end of a Unix socket between two processes of a node, as an IPC port: the messages of a turn leave
 * as one msgpack value in one write (batchingPort), and msgpackr's stream decoder reads the values back
 * whatever way the socket splits them. Cheaper than Node's IPC channel, which serialises with v8's
 * serializer and writes a header and a framing of its own per message. A socket that closed takes nothing
 * more: what is left to say has no audience (its process exited; the mesh forgets it).
 */
export function socketPort<T>(socket: net.Socket): BatchingPort<T> {
  const values = socket.pipe(new UnpackrStream(OPTIONS));
  // A peer that sends what is not msgpack is not a process of this node: its link ends.
  values.on('error', () => socket.destroy());
  return batchingPort<T>({
    send(message: T | IpcBatch) {
      if (socket.writable) socket.write(packr.pack(message));
    },
    listen(handler) {
      values.on('data', handler);
      return () => void values.off('data', handler);
    },
  });
}
