import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Captcha } from 'captcha.gif';
import type { Clock } from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import { Subject } from '../bus/subjects.ts';

export const CAPTCHA_TTL_MS = 5 * 60_000;
/**
 * Open challenges one client address may hold; its next one drops its own oldest, never anyone else's.
 * A person needs one; an office behind one address needs a few (docs/DECISIONS.md).
 */
export const MAX_OPEN_PER_ADDRESS = 10;
/**
 * Open challenges in all, so that a flood from many addresses cannot grow memory. When full (after
 * dropping expired ones), new images are refused rather than anyone's open challenge being dropped.
 */
export const MAX_OPEN_CHALLENGES = 50_000;

/**
 * The image: a GIF from captcha.gif (a TypeScript port of brokestream's C captcha, no native code). Each
 * glyph is drawn from a bitmap font through a random sine warp that changes along the glyph and between
 * challenges, over a random wavy line and random dots, so the same letter is never the same pixels and the
 * image is no lookup table of shapes (the SVG it replaces drew each letter as one fixed path).
 */
const renderer = new Captcha();
const CODE_LENGTH = 5;

interface OpenChallenge {
  /** HMAC-SHA-256 of the answer under the challenge's key, which only its client holds (see {@link issue}). */
  readonly answerMac: Buffer;
  readonly expiresAt: number;
  /** The client address (or IPv6 /64) that asked for it; see MAX_OPEN_PER_ADDRESS. */
  readonly owner: string;
}

// Set only by test support: see keepCaptchaAnswersForTests.
let keepAnswers = false;

/**
 * Makes CaptchaStores created after this call keep the answers of the challenges they draw, so that
 * {@link CaptchaStore.peekForTest} can play a person reading the image. Called by the test support only;
 * the server never calls it, so a production process holds no answer in clear, only keyed hashes.
 */
export function keepCaptchaAnswersForTests(): void {
  keepAnswers = true;
}

function macOf(key: Buffer, lookup: string, answer: string): Buffer {
  return createHmac('sha256', key).update(`${lookup}:${answer.trim().toLowerCase()}`).digest();
}

/** `lookup.key` as handed to the client; undefined for anything else. */
function parseId(id: string): { lookup: string; key: Buffer } | undefined {
  const match = /^([\w-]{22})\.([\w-]{22})$/.exec(id);
  return match?.[1] && match[2] ? { lookup: match[1], key: Buffer.from(match[2], 'base64url') } : undefined;
}

/** Issues captcha images and checks answers; each challenge is single-use and expires. */
export class CaptchaStore {
  /** By lookup id, in the order they were opened (so also, nearly, in the order they expire). */
  readonly #open = new Map<string, OpenChallenge>();
  /** Lookup ids of each owner's open challenges, oldest first. */
  readonly #byOwner = new Map<string, string[]>();
  readonly #answers: Map<string, string> | undefined = keepAnswers ? new Map() : undefined;
  readonly #clock: Clock;
  readonly #maxOpen: number;
  readonly #perAddress: number;

  /**
   * With a shared bus (worker processes of a node, or nodes behind one balancer) the image and the login
   * may reach different processes, so each challenge and its spending are announced to all of them. Only
   * the keyed hash of the answer travels; its key is in the id only the client got, so someone reading the
   * bus cannot try the few million possible answers against it.
   */
  readonly #bus: Bus | undefined;

  constructor(clock: Clock, bus?: Bus, limits: { maxOpen?: number; perAddress?: number } = {}) {
    this.#clock = clock;
    this.#maxOpen = limits.maxOpen ?? MAX_OPEN_CHALLENGES;
    this.#perAddress = limits.perAddress ?? MAX_OPEN_PER_ADDRESS;
    this.#bus = bus?.shared ? bus : undefined;
    this.#bus?.subscribe(Subject.captchaIssued, ({ id, mac, expiresAt, owner }) => {
      if (!this.#open.has(id)) this.#remember(id, { answerMac: Buffer.from(mac, 'base64url'), expiresAt, owner });
    });
    this.#bus?.subscribe(Subject.captchaSpent, (m) => this.#forget(m.id));
  }

  /** Drops expired challenges from the front (the oldest); the map is in opening order. */
  #sweep(): void {
    const now = this.#clock.now();
    for (const [lookup, entry] of this.#open) {
      if (entry.expiresAt > now) break;
      this.#forget(lookup);
    }
  }

  #forget(lookup: string): void {
    const entry = this.#open.get(lookup);
    if (!entry) return;
    this.#open.delete(lookup);
    this.#answers?.delete(lookup);
    const ids = this.#byOwner.get(entry.owner);
    const at = ids?.indexOf(lookup) ?? -1;
    if (ids && at >= 0) ids.splice(at, 1);
    if (ids?.length === 0) this.#byOwner.delete(entry.owner);
  }

  /** False when the store is full; an owner at its quota gives up its own oldest challenge. */
  #remember(lookup: string, entry: OpenChallenge): boolean {
    this.#sweep();
    const own = this.#byOwner.get(entry.owner);
    if (own && own.length >= this.#perAddress) this.#forget(own[0] ?? '');
    if (this.#open.size >= this.#maxOpen) return false;
    this.#open.set(lookup, entry);
    const ids = this.#byOwner.get(entry.owner);
    if (ids) ids.push(lookup);
    else this.#byOwner.set(entry.owner, [lookup]);
    return true;
  }

  /**
   * A new challenge for the client at `owner` (its address): its id and a GIF of the code; undefined when
   * the store is full. The id is `lookup.key`: the store keeps only HMAC(key, answer), so the answer is in
   * no store and on no bus, and the key exists only in the client's hands until it answers.
   */
  issue(owner: string): { id: string; gif: Buffer } | undefined {
    const { buffer, token } = renderer.generate(CODE_LENGTH);
    const lookup = randomBytes(16).toString('base64url');
    const key = randomBytes(16);
    const entry: OpenChallenge = { answerMac: macOf(key, lookup, token), expiresAt: this.#clock.now() + CAPTCHA_TTL_MS, owner };
    if (!this.#remember(lookup, entry)) return undefined;
    this.#answers?.set(lookup, token);
    this.#bus?.publish(Subject.captchaIssued, { id: lookup, mac: entry.answerMac.toString('base64url'), expiresAt: entry.expiresAt, owner });
    return { id: `${lookup}.${key.toString('base64url')}`, gif: buffer };
  }

  /** True when `answer` matches challenge `id`; the challenge is spent either way. */
  check(id: string, answer: string): boolean {
    const parsed = parseId(id);
    const entry = parsed && this.#open.get(parsed.lookup);
    if (!parsed || !entry) return false;
    this.#forget(parsed.lookup);
    this.#bus?.publish(Subject.captchaSpent, { id: parsed.lookup });
    const mac = macOf(parsed.key, parsed.lookup, answer);
    return entry.expiresAt > this.#clock.now() && mac.length === entry.answerMac.length && timingSafeEqual(entry.answerMac, mac);
  }

  /** How many challenges are open here; for tests of the bounds. */
  get openCount(): number {
    return this.#open.size;
  }

  /**
   * The answer of an open challenge this store drew; only for tests that play a human reading the image,
   * and only after {@link keepCaptchaAnswersForTests}.
   */
  peekForTest(id: string): string | undefined {
    if (!this.#answers) throw new Error('captcha answers are kept only after keepCaptchaAnswersForTests()');
    const lookup = parseId(id)?.lookup;
    return lookup === undefined ? undefined : this.#answers.get(lookup);
  }
}
