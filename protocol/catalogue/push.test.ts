import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePushFile, decodePushProgress, type PushFileRequest } from './push.ts';

const pushFile = fc.record<PushFileRequest>({
  campaignId: fc.nat(),
  kind: fc.string(),
  url: fc.string({ minLength: 1 }),
  sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
  size: fc.nat(),
  fileName: fc.string(),
  version: fc.string(),
  packageName: fc.string(),
  autoInstall: fc.boolean(),
});

describe('65551 PushFile request', () => {
  it('reads back every request the platform builds, unchanged', () => {
    fc.assert(fc.property(pushFile, (req) => {
        expect(decodePushFile(JSON.parse(JSON.stringify(req)))).toEqual(req);
      }));
  });

  it('refuses a request missing any field (version, packageName and autoInstall are required too)', () => {
    fc.assert(
      fc.property(pushFile, fc.constantFrom<keyof PushFileRequest>('campaignId', 'kind', 'url', 'sha256', 'size', 'fileName', 'version', 'packageName', 'autoInstall'), (req, missing) => {
        const { [missing]: _dropped, ...rest } = req;
        expect(decodePushFile(rest)).toBeUndefined();
      }),
    );
  });

  it('refuses a hash that is not lower-case hex SHA-256, and negative sizes', () => {
    const ok = { campaignId: 1, kind: 'apk', url: '/content/blob/x', sha256: 'a'.repeat(64), size: 3, fileName: 'a.apk', version: '1.0', packageName: 'com.a', autoInstall: true };
    expect(decodePushFile(ok)).toEqual(ok);
    expect(decodePushFile({ ...ok, sha256: 'A'.repeat(64) })).toBeUndefined();
    expect(decodePushFile({ ...ok, size: -1 })).toBeUndefined();
    expect(decodePushFile({ ...ok, autoInstall: 'yes' })).toBeUndefined();
  });
});

describe('5 PushProgress report', () => {
  it('takes download states 0-7 and install results -1..2 only', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: -3, max: 10 }), fc.option(fc.integer({ min: -3, max: 5 }), { nil: undefined }), (campaignId, downloadState, installResult) => {
        const decoded = decodePushProgress({ campaignId, downloadState, progress: 50, installResult });
        const valid = downloadState >= 0 && downloadState <= 7 && (installResult === undefined || (installResult >= -1 && installResult <= 2));
        expect(decoded !== undefined).toBe(valid);
      }),
    );
  });

  it('clamps progress to 0-100 and keeps at most 200 characters of the message', () => {
    expect(decodePushProgress({ campaignId: 1, downloadState: 1, progress: 140.6, message: 'x'.repeat(300) })).toEqual({ campaignId: 1, downloadState: 1, progress: 100, message: 'x'.repeat(200) });
    expect(decodePushProgress({ campaignId: 1, downloadState: 1, progress: 'half' })).toEqual({ campaignId: 1, downloadState: 1, progress: 0 });
  });
});
