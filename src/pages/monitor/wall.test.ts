import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OnlineState } from '../../../protocol/index.ts';
import { wallCounts } from './wall.ts';

const { Online, Offline } = OnlineState;

describe('monitor wall counts', () => {
  it('counts the tiles with live presence applied when the wall holds the whole fleet', () => {
    const devices = [
      { sn: 'a', onlineState: Online },
      { sn: 'b', onlineState: Offline },
      { sn: 'c', onlineState: Offline },
    ];
    expect(wallCounts(devices, 3, {}, undefined)).toEqual({ total: 3, online: 1, offline: 2 });
    expect(wallCounts(devices, 3, { a: Offline, c: Online, b: Online }, 1)).toEqual({ total: 3, online: 2, offline: 1 });
  });

  it('for a fleet larger than the wall, moves the server count by the changes seen, within bounds', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.option(fc.boolean(), { nil: undefined })), { maxLength: 30 }), fc.nat(50), fc.nat(100), (rows, extra, serverOnline) => {
        const devices = rows.map(([on], i) => ({ sn: `d${i}`, onlineState: on ? Online : Offline }));
        const live = Object.fromEntries(rows.flatMap(([, now], i) => (now === undefined ? [] : [[`d${i}`, now ? Online : Offline]])));
        const total = devices.length + extra + 1;
        const c = wallCounts(devices, total, live, Math.min(serverOnline, total));
        expect(c.online + c.offline).toBe(total);
        expect(c.online).toBeGreaterThanOrEqual(0);
        expect(c.online).toBeLessThanOrEqual(total);
      }),
    );
  });
});
