import path from 'node:path';
import type { ClientReply, ClientRequest } from './client-messages.ts';
import { ForkedProcess } from './forked.ts';

/** The bench's handle on the forked round-trip client (console engine and bare-ws baseline). */
export class RoundTripClient extends ForkedProcess<ClientRequest, ClientReply> {
  constructor() {
    super(path.resolve(import.meta.dirname, 'round-trip-client.ts'), {});
  }
}
