import { describe, expect, it } from 'vitest';
import { SUPPORT_FLAGS } from '../../protocol/index.ts';
import { luhnCheckDigit, simulatedEntityFields, simulatedIdentity } from './identity.ts';
import { simulatedBackend } from './simulated-backend.ts';

const luhnValid = (imei: string) => luhnCheckDigit(imei.slice(0, -1)) === Number(imei.at(-1));
const ANDROID = { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.01', networkType: 2 } as const;
const LINUX = { model: 'L1 Gateway', systemType: 'linux', systemVersion: 'Linux 6.1.5', imageVersion: '241001.01', networkType: 3 } as const;

describe('a simulated terminal\'s identity', () => {
  it('computes the Luhn check digit of an IMEI', () => {
    // The textbook IMEI 49015420323751-8.
    expect(luhnCheckDigit('49015420323751')).toBe(8);
    expect(luhnCheckDigit('35693803564380')).toBe(9);
  });

  it('gives every Android terminal a 15-digit IMEI with a valid check digit, unique across a fleet', () => {
    const imeis = Array.from({ length: 5000 }, (_, i) => simulatedIdentity(`SIM${String(i + 1).padStart(5, '0')}`, 'android').imei ?? '');
    expect(imeis.every((imei) => /^\d{15}$/.test(imei) && luhnValid(imei))).toBe(true);
    expect(new Set(imeis).size).toBe(imeis.length);
  });

  it('is the same terminal for the same serial, and another for another serial', () => {
    const a = simulatedIdentity('SIM00042', 'android');
    const again = simulatedIdentity('SIM00042', 'android');
    const b = simulatedIdentity('SIM00043', 'android');
    const now = Date.UTC(2025, 0, 1);
    expect(simulatedEntityFields(again, 'android', now, now - 1000)).toEqual(simulatedEntityFields(a, 'android', now, now - 1000));
    expect(b.imei).not.toBe(a.imei);
    expect(b.wlanMac).not.toBe(a.wlanMac);
  });

  it('reports every entity field at login with the values its system info (65613) answers', async () => {
    const now = Date.UTC(2025, 0, 1, 12);
    const bootedAt = now - 3_600_000;
    for (const [sn, info] of [['SIM00007', ANDROID], ['SIM00008', LINUX]] as const) {
      const identity = simulatedIdentity(sn, info.systemType);
      const login = simulatedEntityFields(identity, info.systemType, now, bootedAt);
      const system = await simulatedBackend(sn, info, () => now, () => bootedAt).systemInfo();
      expect(login).toMatchObject({ manufacturer: system.manufacturer, wlanMac: system.wlanMac, uptime: 3600, storageTotal: system.storage.total, storageFree: system.storage.free });
      expect(login.supportFlags).toEqual(SUPPORT_FLAGS.filter((f) => system.support[f]));
      expect(login.imei).toBe(system.imei);
      expect(login.basebandVersion).toBe(system.basebandVersion);
      expect(login.bluetoothMac ?? '').toBe(system.bluetoothMac);
      expect(login.mcuVersion).toMatch(/^v\d\.\d\d$/);
      expect(login.installDate).toBeGreaterThanOrEqual(Date.UTC(2023, 0, 1));
      expect(login.installDate).toBeLessThan(Date.UTC(2024, 9, 2));
      expect(login.hardwareId).toMatch(/^HW[0-9A-F]{8}$/);
      if (info.systemType === 'android') {
        expect(login).toMatchObject({ imei: expect.stringMatching(/^\d{15}$/), lteModel: expect.any(String), gnssModel: expect.any(String), battery: expect.any(Number) });
      } else {
        // A mains-powered gateway without a modem: no IMEI, no battery, no Bluetooth.
        expect(login).not.toHaveProperty('imei');
        expect(login).not.toHaveProperty('battery');
        expect(login).not.toHaveProperty('bluetoothMac');
      }
    }
  });

  it('drains and charges its battery slowly, within 15-100 %', () => {
    const identity = simulatedIdentity('SIM00009', 'android');
    const start = Date.UTC(2025, 0, 1);
    const levels = Array.from({ length: 10 * 60 }, (_, minute) => identity.battery(start + minute * 60_000) ?? -1);
    expect(Math.min(...levels)).toBe(15);
    expect(Math.max(...levels)).toBe(100);
    // A minute apart, the level moves by at most a percent, charging or discharging.
    expect(levels.every((l, i) => i === 0 || Math.abs(l - (levels[i - 1] as number)) <= 1)).toBe(true);
  });
});
