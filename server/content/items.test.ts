import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRef } from '../../protocol/index.ts';
import { refuseUpload as refuseUploadRef, UploadMessage } from '../uploads/upload-kinds.ts';

/** The refusal in English (refuseUpload answers with a message key). */
const refuseUpload = (...args: Parameters<typeof refuseUploadRef>) => {
  const ref = refuseUploadRef(...args);
  return ref && formatRef('en', ref);
};
import { validFirmwareVersion } from './items.ts';

describe('firmware version formats (devices-and-commerce section 5)', () => {
  it('takes the spec examples and refuses the wrong type or an impossible date', () => {
    expect(validFirmwareVersion('system', '201025.11')).toBe(true);
    expect(validFirmwareVersion('system', '20240101')).toBe(true);
    expect(validFirmwareVersion('mcu', 'v1.03')).toBe(true);
    expect(validFirmwareVersion('GNSS', 'v123.45')).toBe(true);
    expect(validFirmwareVersion('4G', '20240101')).toBe(true);
    expect(validFirmwareVersion('mcu', '201025.11')).toBe(false);
    expect(validFirmwareVersion('system', 'v1.03')).toBe(false);
    expect(validFirmwareVersion('system', '201325.11')).toBe(false);
    expect(validFirmwareVersion('system', '201025.24')).toBe(false);
    expect(validFirmwareVersion('4G', '20240230')).toBe(false);
  });

  it('accepts every real yyMMdd.HH for system firmware', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:00:00Z'), noInvalidDate: true }), (d) => {
        const p = (n: number) => String(n).padStart(2, '0');
        const v = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}.${p(d.getUTCHours())}`;
        expect(validFirmwareVersion('system', v)).toBe(true);
      }),
    );
  });
});

describe('upload refusals', () => {
  it('names the reason: format, name, size', () => {
    expect(refuseUpload('app', 'a.txt', 10)).toBe(UploadMessage.AppOnlyApk);
    expect(refuseUpload('wallpaper', 'a.gif', 10)).toBe(UploadMessage.ImageOnly);
    expect(refuseUpload('file', `${'x'.repeat(129)}`, 10)).toBe('File name is too long (at most 128 characters)');
    expect(refuseUpload('file', '.hidden', 10)).toBe(UploadMessage.BadName);
    expect(refuseUpload('file', 'a/../b', 10)).toBe(UploadMessage.BadName);
    expect(refuseUpload('file', 'report 😀.pdf', 10)).toBe(UploadMessage.BadName);
    expect(refuseUpload('firmware', 'fw.img', 2 * 1024 ** 3 + 1)).toMatch(/too large/);
    expect(refuseUpload('firmware', 'fw.img', 2 * 1024 ** 3)).toBeUndefined();
    expect(refuseUpload('app', '扫码.apk', 1024)).toBeUndefined();
  });
});
