import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { DownloadState, PushResult } from '../../protocol/index.ts';
import { buyCoupons } from '../support/coupons.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { api, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/** What the push log holds for one campaign, per device. */
async function targets(ts: TestServer, campaignId: number) {
  return ts.server.db.selectFrom('push_targets').select(['sn', 'push_result', 'download_state', 'phase']).where('campaign_id', '=', campaignId).orderBy('sn').execute();
}

describe('simulated devices download pushed content for real, and report a second push of it as duplicated download (7)', () => {
  let ts: TestServer;
  const devices: DeviceSession[] = [];

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
  });
  afterAll(async () => {
    devices.forEach((d) => d.dispose());
    await ts?.stop();
  });

  it('the second campaign with the same content finishes as 7 with the file gone from the platform; a device without it fails to download', { timeout: 60_000 }, async () => {
    await startVirtualDevices(ts, ['DUP1', 'DUP2'], devices, { pushDownload: true });
    const { token } = await loginAsAdmin(ts);
    const contentId = await uploadFirmware(ts.server.url, token);
    expect((await buyCoupons(ts.server.url, token, token, 50)).balance).toBe(50);

    const push = async (sns: readonly string[]) => {
      const started = await api<{ campaign: { id: number } }>(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns, maxRetries: 0 } });
      expect(started.code).toBe(20000);
      const id = started.data.campaign.id;
      await vi.waitFor(async () => expect((await targets(ts, id)).every((t) => t.phase === 'done' || t.phase === 'failed')).toBe(true), { timeout: 30_000, interval: 100 });
      return targets(ts, id);
    };

    const first = await push(['DUP1', 'DUP2']);
    expect(first.map((t) => [t.sn, t.push_result, t.download_state])).toEqual([
      ['DUP1', PushResult.Success, DownloadState.UpgradeSuccess],
      ['DUP2', PushResult.Success, DownloadState.UpgradeSuccess],
    ]);
    // The file leaves the platform: only a device that does not have it needs it.
    const { sha256 } = await ts.server.db.selectFrom('content_items').select('sha256').where('id', '=', contentId).executeTakeFirstOrThrow();
    const blob = path.join(ts.config.dataDir, 'content', sha256.slice(0, 2), sha256);
    expect(fs.existsSync(blob)).toBe(true);
    fs.rmSync(blob);

    const second = await push(['DUP1', 'DUP2']);
    expect(second.map((t) => [t.sn, t.push_result, t.download_state])).toEqual([
      ['DUP1', PushResult.Success, DownloadState.DuplicatedDownload],
      ['DUP2', PushResult.Success, DownloadState.DuplicatedDownload],
    ]);

    await startVirtualDevices(ts, ['DUP3'], devices, { pushDownload: true });
    const third = await push(['DUP3']);
    expect(third.map((t) => [t.sn, t.push_result, t.download_state])).toEqual([['DUP3', PushResult.Fail, DownloadState.Failed]]);
  });
});
