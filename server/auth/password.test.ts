import { describe, expect, it } from 'vitest';
import { ApiCode, ApiError, Message } from '../http/envelope.ts';
import { HashGate } from './password.ts';

describe('password hash gate', () => {
  it('runs at most `slots` hashes at once, queues `queue` more and refuses the rest with the spec message', async () => {
    const gate = new HashGate(2, 3);
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const work = () =>
      new Promise<void>((resolve) => {
        running++;
        most = Math.max(most, running);
        releases.push(() => {
          running--;
          resolve();
        });
      });
    const outcomes = Array.from({ length: 8 }, () => gate.run(work).then(() => 'done', (err: unknown) => err));
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(2);
    const refused = (await Promise.all(outcomes.slice(5))) as ApiError[];
    for (const err of refused) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err.code).toBe(ApiCode.TooFrequent);
      expect(err.message).toBe(Message.TooFrequent);
    }
    // Each finished hash hands its slot to the next in line.
    while (releases.length > 0) {
      releases.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(outcomes.slice(0, 5))).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(most).toBe(2);
    // Free again: the next one runs at once.
    const next = gate.run(work);
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(1);
    releases.shift()?.();
    await next;
  });
});
