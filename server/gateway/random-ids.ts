import { randomBytes } from 'node:crypto';

/** Random bytes per id: 96 bits, 16 base64url characters; no one guesses one another socket was sent. */
const ID_BYTES = 12;
/** Ids drawn from one call to the CSPRNG: a command costs a slice of a buffer, not a system call. */
const POOL_IDS = 512;

let pool = Buffer.alloc(0);
let offset = 0;

/**
 * An unguessable id from the operating system's CSPRNG, for the gateway's correlation ids and the flows
 * it names. A counter is guessable: a device that saw one id could answer the next ones, meant for
 * other devices. Binding each pending command to its socket is the defence; this takes away the guess too.
 */
export function randomId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * POOL_IDS);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}
