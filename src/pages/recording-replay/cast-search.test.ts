import { describe, expect, it } from 'vitest';
import { searchCast } from './cast-search.ts';

const cast = [
  JSON.stringify({ version: 2, width: 80, height: 24, timestamp: 1 }),
  JSON.stringify([0.5, 'o', '$ ']),
  JSON.stringify([1.0, 'i', 'echo Hel']),
  JSON.stringify([1.2, 'o', 'echo \u001b[31mHel']),
  JSON.stringify([30.0, 'o', 'lo\u001b[0m\r\nHello\r\n']),
  JSON.stringify([31.0, 'o', 'bye\r\n']),
].join('\n');

describe('search in a shell recording', () => {
  it('finds text across events and colour codes, ignoring case, at the time its last part is drawn', () => {
    expect(searchCast(cast, 'hello').map((m) => m.time)).toEqual([30, 30]);
    expect(searchCast(cast, 'BYE')).toEqual([{ time: 31, context: '$ echo Hello Hello bye' }]);
    expect(searchCast(cast, 'nothing')).toEqual([]);
    expect(searchCast(cast, '')).toEqual([]);
  });

  it('follows the player: idle gaps count as the idle limit', () => {
    // 0.5 + 0.5 + 0.2 + min(28.8, 2) = 3.2
    expect(searchCast(cast, 'hello', 2)[0]?.time).toBeCloseTo(3.2);
    expect(searchCast(cast, 'bye', 2)[0]?.time).toBeCloseTo(4.2);
  });
});
