import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import type { CampaignView, PushStarted } from '../../protocol/api/campaigns.ts';
import type { MaintenanceWindow } from '../../protocol/index.ts';
import { buyCoupons } from '../support/coupons.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { api, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const HOUR = 3_600_000;
/** 'HH:mm' of `at` in UTC. */
const hhmm = (at: number) => new Date(at).toISOString().slice(11, 16);
const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];

describe('scheduled campaigns and maintenance windows (issue 23)', () => {
  let ts: TestServer;
  let token: string;
  let contentId: number;
  const devices: DeviceSession[] = [];

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    await startVirtualDevices(ts, ['WIN1', 'WIN2', 'WIN3'], devices);
    token = (await loginAsAdmin(ts)).token;
    contentId = await uploadFirmware(ts.server.url, token);
    expect((await buyCoupons(ts.server.url, token, token, 50)).balance).toBe(50);
  });
  afterAll(async () => {
    devices.forEach((d) => d.dispose());
    await ts?.stop();
  });

  const start = async (sn: string, extra: { startAt?: number; window?: MaintenanceWindow }) => {
    const res = await api<PushStarted>(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns: [sn], ...extra } });
    expect(res, res.message).toMatchObject({ code: 20000 });
    return res.data.campaign;
  };
  const view = async (id: number) => (await api<CampaignView>(ts.server.url, 'GET', `/push/campaign/${id}`, { token })).data;

  it('waits outside its window while a later campaign without one runs, and dispatches once the window opens', { timeout: 60_000 }, async () => {
    const now = Date.now();
    // Open from two to three hours from now, every day: closed now.
    const closed: MaintenanceWindow = { days: EVERY_DAY, from: hhmm(now + 2 * HOUR), to: hhmm(now + 3 * HOUR), timeZone: 'UTC' };
    const waiting = await start('WIN1', { window: closed });
    expect(waiting).toMatchObject({ state: 'running', waiting: 'outsideWindow', window: closed });
    expect(waiting.nextOpen).toBeGreaterThan(now + HOUR);
    // A campaign started after it, with no window, runs to the end: the runner's passes went by the waiting one.
    const other = await start('WIN2', {});
    await vi.waitFor(async () => expect((await view(other.id)).success).toBe(1), { timeout: 30_000, interval: 100 });
    expect(await view(waiting.id)).toMatchObject({ queued: 1, pushing: 0, success: 0, waiting: 'outsideWindow' });

    // The window is moved to now (as if the clock had reached it): the campaign dispatches by itself.
    const open: MaintenanceWindow = { days: EVERY_DAY, from: hhmm(Date.now() - HOUR), to: hhmm(Date.now() + HOUR), timeZone: 'UTC' };
    await ts.server.db.updateTable('push_campaigns').set({ window_json: JSON.stringify(open) }).where('id', '=', waiting.id).execute();
    await vi.waitFor(async () => expect((await view(waiting.id)).success).toBe(1), { timeout: 30_000, interval: 100 });
    expect((await view(waiting.id)).waiting).toBeNull();
  });

  it('a campaign scheduled for later says so and sends nothing before its time', { timeout: 60_000 }, async () => {
    const startAt = Date.now() + 2_500;
    const scheduled = await start('WIN3', { startAt });
    expect(scheduled).toMatchObject({ waiting: 'scheduled', startAt, nextOpen: startAt });
    await vi.waitFor(async () => expect((await view(scheduled.id)).success).toBe(1), { timeout: 30_000, interval: 100 });
    const row = await ts.server.db.selectFrom('push_targets').select('updated_at').where('campaign_id', '=', scheduled.id).executeTakeFirstOrThrow();
    expect(Number(row.updated_at)).toBeGreaterThanOrEqual(startAt);
  });

  it('refuses a window without days, with equal times or an unknown zone, in the caller\'s words', async () => {
    const bad = async (window: MaintenanceWindow) => api(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns: ['WIN1'], window } });
    expect(await bad({ days: EVERY_DAY, from: '10:00', to: '10:00', timeZone: 'UTC' })).toMatchObject({ code: 40001, key: 'push.windowTimes' });
    expect(await bad({ days: [1], from: '10:00', to: '11:00', timeZone: 'Mars/Olympus' })).toMatchObject({ code: 40001, key: 'push.windowZone' });
    expect((await bad({ days: [], from: '10:00', to: '11:00', timeZone: 'UTC' })).code).toBe(40001);
  });
});
