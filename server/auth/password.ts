import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { ApiCode, ApiError } from '../http/envelope.ts';

// N=2^15, r=8: about 50 ms and 32 MiB per hash on these machines, slow enough to blunt offline guessing.
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LEN = 32;

/**
 * Bounds how many scrypt runs are in flight. Each costs ~50 ms of a core and 32 MiB, so unbounded
 * concurrency lets a flood of logins (different accounts, each allowed by its own limits) take every core
 * and much memory: a real login went from 65 ms to 679 ms. At most `slots` run at once and at most
 * `queue` wait for a slot; anything beyond is refused at once with the spec's 'You click too frequently！',
 * which is cheaper for everyone than a long queue that ends in client time-outs.
 */
export class HashGate {
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  readonly slots: number;
  readonly queue: number;

  constructor(slots: number, queue: number) {
    this.slots = Math.max(1, slots);
    this.queue = Math.max(0, queue);
  }

  /** Runs `work` in a slot, waiting in the queue when all are taken; refuses when the queue is full too. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running < this.slots) this.#running++;
    else if (this.#waiting.length < this.queue) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else throw new ApiError(ApiCode.TooFrequent, 'common.tooFrequent');
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so `#running` counts only once per slot.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

/** One scrypt run per core, and a queue of four per core: at most ~5 hash times of waiting (docs/DECISIONS.md). */
export const HASH_SLOTS = availableParallelism();
export const HASH_QUEUE = 4 * HASH_SLOTS;
/** Shared by every password hash and check of this process: the cores are shared too. */
export const hashGate = new HashGate(HASH_SLOTS, HASH_QUEUE);

function derive(secret: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return hashGate.run(
    () =>
      new Promise((resolve, reject) => {
        scrypt(secret, salt, KEY_LEN, { ...opts, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
      }),
  );
}

/**
 * Hashes a secret with scrypt into a self-describing string: scrypt$N$r$p$salt$hash. Throws the spec's
 * 'You click too frequently！' ApiError when too many hashes are already running and waiting.
 */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Checks a secret against a stored hash in constant time; refuses as {@link hashSecret} does when busy. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(secret, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
