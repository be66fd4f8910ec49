import { describe, expect, it } from 'vitest';
import { turnCorker } from './turn-corker.ts';

function fakeSocket(name: string, log: string[], failUncork = false) {
  return {
    cork: () => void log.push(`cork ${name}`),
    uncork: () => {
      log.push(`uncork ${name}`);
      if (failUncork) throw new Error('destroyed');
    },
  };
}

describe('turnCorker', () => {
  it('corks each socket once per turn and uncorks them all when the deferred release runs', () => {
    const log: string[] = [];
    const deferred: (() => void)[] = [];
    const hold = turnCorker((release) => deferred.push(release));
    const a = fakeSocket('a', log);
    const b = fakeSocket('b', log);
    hold(a);
    hold(a);
    hold(b);
    expect(deferred).toHaveLength(1);
    expect(log).toEqual(['cork a', 'cork b']);
    deferred[0]?.();
    expect(log).toEqual(['cork a', 'cork b', 'uncork a', 'uncork b']);
    // A new turn corks again and schedules a new release.
    hold(a);
    expect(deferred).toHaveLength(2);
    expect(log.at(-1)).toBe('cork a');
  });

  it('a socket that fails to uncork does not keep the others corked or stop later turns', () => {
    const log: string[] = [];
    const deferred: (() => void)[] = [];
    const hold = turnCorker((release) => deferred.push(release));
    hold(fakeSocket('dead', log, true));
    hold(fakeSocket('ok', log));
    deferred[0]?.();
    expect(log).toEqual(['cork dead', 'cork ok', 'uncork dead', 'uncork ok']);
    hold(fakeSocket('next', log));
    expect(deferred).toHaveLength(2);
  });
});
