import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeviceState, OnlineState } from '../../../protocol/index.ts';
import { filterWall, tileState, wallCounts } from './wall.ts';

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

describe('monitor wall filters and tile states', () => {
  const devices = [
    { sn: 'SIM001', onlineState: Online, model: 'P10', systemType: 'android' },
    { sn: 'SIM002', onlineState: Offline, model: 'L3 Kiosk', systemType: 'linux' },
    { sn: 'OTHER3', onlineState: Offline, model: 'P8 Pro', systemType: 'android' },
  ];
  const all = { sn: '', model: '', state: 'all', system: 'all' } as const;

  it('filters by serial and model (substrings, any case), system, and the live online state', () => {
    expect(filterWall(devices, { ...all, sn: 'sim' }, {}).map((d) => d.sn)).toEqual(['SIM001', 'SIM002']);
    expect(filterWall(devices, { ...all, model: 'kiosk' }, {}).map((d) => d.sn)).toEqual(['SIM002']);
    expect(filterWall(devices, { ...all, system: 'android' }, {}).map((d) => d.sn)).toEqual(['SIM001', 'OTHER3']);
    expect(filterWall(devices, { ...all, state: 'online' }, {}).map((d) => d.sn)).toEqual(['SIM001']);
    // Presence heard since the load wins.
    expect(filterWall(devices, { ...all, state: 'online' }, { SIM001: Offline, OTHER3: Online }).map((d) => d.sn)).toEqual(['OTHER3']);
    expect(filterWall(devices, { ...all, state: 'offline' }, { SIM001: Offline }).map((d) => d.sn)).toEqual(['SIM001', 'SIM002', 'OTHER3']);
  });

  it('colours an offline tile grey whatever its state, and an online one by its state', () => {
    expect(tileState(false, DeviceState.Expired)).toBe('offline');
    expect(tileState(true, DeviceState.Normal)).toBe('online');
    expect(tileState(true, DeviceState.Expired)).toBe('expired');
    expect(tileState(true, DeviceState.NotActive)).toBe('inactive');
  });
});
