import { describe, expect, it } from 'vitest';
import { linuxDeviceInfo, networkTypeOf } from './linux-info.ts';

describe('linux device info', () => {
  it('maps interface names to the spec network types', () => {
    expect(networkTypeOf(['lo', 'eth0'])).toBe(3);
    expect(networkTypeOf(['enp3s0'])).toBe(3);
    expect(networkTypeOf(['wlan0'])).toBe(2);
    expect(networkTypeOf(['wwan0'])).toBe(1);
    expect(networkTypeOf([])).toBe(0);
  });

  it('reports this machine as a Linux device with its kernel', async () => {
    const info = linuxDeviceInfo();
    expect(info.systemType).toBe('linux');
    expect(info.systemVersion).toContain((await import('node:os')).release());
    expect(info.model.length).toBeGreaterThan(0);
  });
});
