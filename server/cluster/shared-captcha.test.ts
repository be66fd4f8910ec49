import { describe, expect, it } from 'vitest';
import { systemClock } from '../../protocol/index.ts';
import { CaptchaStore, keepCaptchaAnswersForTests } from '../auth/captcha.ts';
import { linkInMemory, MeshBus } from '../bus/mesh-bus.ts';
import { BUS_SUBJECTS, type CaptchaIssued, Subject } from '../bus/subjects.ts';

keepCaptchaAnswersForTests();

/** Two workers' buses, linked in memory: delivery between them is as between processes, only synchronous. */
async function twoWorkers(): Promise<readonly [MeshBus, MeshBus]> {
  const buses = [new MeshBus(BUS_SUBJECTS), new MeshBus(BUS_SUBJECTS)] as const;
  await linkInMemory(buses);
  return buses;
}

describe('captcha challenges across the worker processes of a node', () => {
  it('are answered on another worker than the one that drew the image, once', async () => {
    const [one, other] = await twoWorkers();
    const drew = new CaptchaStore(systemClock, one);
    const answers = new CaptchaStore(systemClock, other);
    const { id } = drew.issue('192.0.2.1') ?? { id: '' };
    const text = drew.peekForTest(id) ?? '';
    expect(text).toMatch(/^[a-z]{5}$/);
    expect(answers.check(id, text.toUpperCase())).toBe(true);
    expect(drew.check(id, text)).toBe(false);
    expect(answers.check(id, text)).toBe(false);
  });

  it('cross the bus without their answers: only a hash keyed by what the client alone was given', async () => {
    const [one, other] = await twoWorkers();
    const heard: CaptchaIssued[] = [];
    other.subscribe(Subject.captchaIssued, (m) => heard.push(m));
    const drew = new CaptchaStore(systemClock, one);
    const answers = new CaptchaStore(systemClock, other);
    const challenges = Array.from({ length: 20 }, (_, i) => drew.issue(`192.0.2.${i}`) ?? { id: '' });
    expect(heard).toHaveLength(20);
    for (const [i, { id }] of challenges.entries()) {
      const text = drew.peekForTest(id) ?? '';
      const wire = JSON.stringify(heard[i]);
      expect(wire.toLowerCase()).not.toContain(text);
      // Nor the key the hash is made with: it is the part of the id after the dot, which stays with the client.
      const key = id.split('.')[1] ?? '';
      expect(key).toHaveLength(22);
      expect(wire).not.toContain(key);
    }
    // The other worker still checks an answer, with the key the client sends back in the id.
    const last = challenges[19]?.id ?? '';
    expect(answers.check(last, 'wrong')).toBe(false);
    const next = drew.issue('192.0.2.1')?.id ?? '';
    expect(answers.check(next, drew.peekForTest(next) ?? '')).toBe(true);
  });
});
