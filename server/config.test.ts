import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

describe('configuration: device admission', () => {
  it('waits 2 s for a place by default, 0 answers at once, and refuses a wait a device would give up on', () => {
    expect(loadConfig({}).deviceAdmissionWaitMs).toBe(2_000);
    expect(loadConfig({ DEVICE_ADMISSION_WAIT_MS: '0' }).deviceAdmissionWaitMs).toBe(0);
    expect(loadConfig({ DEVICE_ADMISSION_WAIT_MS: '5000' }).deviceAdmissionWaitMs).toBe(5_000);
    expect(() => loadConfig({ DEVICE_ADMISSION_WAIT_MS: '9000' })).toThrow(/DEVICE_ADMISSION_WAIT_MS must be at most 5000/);
    expect(() => loadConfig({ DEVICE_ADMISSION_WAIT_MS: '-1' })).toThrow(/DEVICE_ADMISSION_WAIT_MS must be a non-negative integer/);
  });
});
