import { randomUUID } from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import type { Clock } from '../../protocol/index.ts';

export const CAPTCHA_TTL_MS = 5 * 60_000;
// Bounded so that a flood of captcha requests cannot grow memory; the oldest challenge is dropped first.
const MAX_OPEN_CHALLENGES = 10_000;

/** Issues captcha images and checks answers; each challenge is single-use and expires. */
export class CaptchaStore {
  readonly #open = new Map<string, { text: string; expiresAt: number }>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** A new challenge: its id and an SVG image of the code. */
  issue(): { id: string; svg: string } {
    const { text, data } = svgCaptcha.create({ size: 4, noise: 2, ignoreChars: '0oO1ilI', color: true, background: '#f0f4f8' });
    const id = randomUUID();
    if (this.#open.size >= MAX_OPEN_CHALLENGES) {
      const oldest = this.#open.keys().next().value;
      if (oldest !== undefined) this.#open.delete(oldest);
    }
    this.#open.set(id, { text: text.toLowerCase(), expiresAt: this.#clock.now() + CAPTCHA_TTL_MS });
    return { id, svg: data };
  }

  /** True when `answer` matches challenge `id`; the challenge is spent either way. */
  check(id: string, answer: string): boolean {
    const entry = this.#open.get(id);
    this.#open.delete(id);
    return entry !== undefined && entry.expiresAt > this.#clock.now() && entry.text === answer.trim().toLowerCase();
  }

  /** The answer of an open challenge; only for tests that play a human reading the image. */
  peekForTest(id: string): string | undefined {
    return this.#open.get(id)?.text;
  }
}
