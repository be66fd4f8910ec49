import { randomUUID } from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import type { Clock } from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';

export const CAPTCHA_TTL_MS = 5 * 60_000;
// Bounded so that a flood of captcha requests cannot grow memory; the oldest challenge is dropped first.
const MAX_OPEN_CHALLENGES = 10_000;
/** Bus subjects of challenges shared between processes (see the constructor). */
const CAPTCHA_ISSUED = 'captcha.issued';
const CAPTCHA_SPENT = 'captcha.spent';

/** Issues captcha images and checks answers; each challenge is single-use and expires. */
export class CaptchaStore {
  readonly #open = new Map<string, { text: string; expiresAt: number }>();
  readonly #clock: Clock;

  /**
   * With a shared bus (worker processes of a node, or nodes behind one balancer) the image and the login
   * may reach different processes, so each challenge and its spending are announced to all of them.
   */
  readonly #bus: Bus | undefined;

  constructor(clock: Clock, bus?: Bus) {
    this.#clock = clock;
    this.#bus = bus?.shared ? bus : undefined;
    this.#bus?.subscribe(CAPTCHA_ISSUED, (m) => {
      if (typeof m.id === 'string' && typeof m.text === 'string' && typeof m.expiresAt === 'number' && !this.#open.has(m.id)) this.#remember(m.id, m.text, m.expiresAt);
    });
    this.#bus?.subscribe(CAPTCHA_SPENT, (m) => void this.#open.delete(String(m.id)));
  }

  #remember(id: string, text: string, expiresAt: number): void {
    if (this.#open.size >= MAX_OPEN_CHALLENGES) {
      const oldest = this.#open.keys().next().value;
      if (oldest !== undefined) this.#open.delete(oldest);
    }
    this.#open.set(id, { text, expiresAt });
  }

  /** A new challenge: its id and an SVG image of the code. */
  issue(): { id: string; svg: string } {
    const { text, data } = svgCaptcha.create({ size: 4, noise: 2, ignoreChars: '0oO1ilI', color: true, background: '#f0f4f8' });
    const id = randomUUID();
    const entry = { text: text.toLowerCase(), expiresAt: this.#clock.now() + CAPTCHA_TTL_MS };
    this.#remember(id, entry.text, entry.expiresAt);
    this.#bus?.publish(CAPTCHA_ISSUED, { id, ...entry });
    return { id, svg: data };
  }

  /** True when `answer` matches challenge `id`; the challenge is spent either way. */
  check(id: string, answer: string): boolean {
    const entry = this.#open.get(id);
    this.#open.delete(id);
    if (entry) this.#bus?.publish(CAPTCHA_SPENT, { id });
    return entry !== undefined && entry.expiresAt > this.#clock.now() && entry.text === answer.trim().toLowerCase();
  }

  /** The answer of an open challenge; only for tests that play a human reading the image. */
  peekForTest(id: string): string | undefined {
    return this.#open.get(id)?.text;
  }
}
