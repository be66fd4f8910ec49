import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { DeviceSession } from '../../agent/device-session.ts';
import { httpPushJob, pushFileHandler } from '../../agent/push/push-file.ts';
import { seededRandom } from '../../agent/simulator/prng.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, OnlineState, systemClock } from '../../protocol/index.ts';
import { loadConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/server.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';
import { buyCoupons } from '../support/coupons.ts';
import { api, loginAs, loginAsAdmin, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';
import { client, createAccount, createRole } from '../support/console-api.ts';
import { uploadFirmware } from '../support/firmware.ts';

const targets = await dbTargets();

/** A server that can be stopped and started again on the same database, data directory and port. */
async function restartableServer(target: 'sqlite' | 'postgres') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campaigns-'));
  const pg = target === 'postgres' ? await freshPgSchema() : undefined;
  let port = '0';
  const boot = async (): Promise<TestServer> => {
    const config = loadConfig({ PORT: port, DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', ...(pg ? { DATABASE_URL: TEST_PG_URL } : {}) });
    const server: RunningServer = await startServer(config, { pgSchema: pg?.schema });
    port = new URL(server.url).port;
    return { server, config, stop: () => server.close() };
  };
  return {
    boot,
    async cleanup() {
      await pg?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function device(ts: TestServer, sn: string): DeviceSession {
  return createVirtualDevice({
    gatewayUrl: ts.server.deviceSocketUrl,
    sn,
    enrollKey: ts.server.seeded.enrollKey,
    info: { model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 2 },
    transport: wsTransport(),
    clock: systemClock,
    rebootDownMs: 1_000,
    tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } },
  });
}

const onlineState = async (ts: TestServer, sn: string) =>
  (await ts.server.db.selectFrom('devices').select('online_state').where('sn', '=', sn).executeTakeFirstOrThrow()).online_state;

async function phases(ts: TestServer, campaignId: number): Promise<Record<string, number>> {
  const rows = await ts.server.db.selectFrom('push_targets').select('phase').where('campaign_id', '=', campaignId).execute();
  const out: Record<string, number> = {};
  for (const r of rows) out[r.phase] = (out[r.phase] ?? 0) + 1;
  return out;
}

async function pushCharges(ts: TestServer, campaignId: number) {
  return ts.server.db.selectFrom('push_coupon_ledger').select(['sn']).where('campaign_id', '=', campaignId).where('reason', '=', 'push').execute();
}

describe.each(targets)('push campaigns on $name', (target) => {
  const sessions: DeviceSession[] = [];
  afterAll(() => sessions.forEach((s) => s.dispose()));

  it.runIf(target.available)('pushes firmware to every device, waits for offline ones, charges one coupon each, and resumes after a restart', { timeout: 120_000 }, async () => {
    const env = await restartableServer(target.name);
    let ts = await env.boot();
    try {
      let token = (await loginAsAdmin(ts)).token;
      const sns = Array.from({ length: 30 }, (_, i) => `CMP${target.name === 'sqlite' ? 'S' : 'P'}${String(i).padStart(3, '0')}`);
      const devs = sns.map((sn) => device(ts, sn));
      sessions.push(...devs);
      devs.forEach((d) => d.start());
      await Promise.all(devs.map((d) => d.waitLoggedIn()));
      // A third of the fleet goes away before the push.
      const away = devs.slice(0, 10);
      away.forEach((d) => d.stop());
      await vi.waitFor(async () => {
        for (const d of away) expect(await onlineState(ts, d.sn)).toBe(OnlineState.Offline);
      }, { timeout: 10_000 });

      const contentId = await uploadFirmware(ts.server.url, token);
      // Without coupons the push is refused before it starts.
      const refused = await api(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns } });
      expect(refused.message).toMatch(/Not enough push coupons/);
      expect((await api(ts.server.url, 'POST', '/push-coupon/recharge', { token, body: { count: 49 } })).message).toBe('Push coupon recharge minimum 50');
      expect((await buyCoupons(ts.server.url, token, token, 50)).balance).toBe(50);
      expect((await api(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns: [] } })).message).toBe('Please select at least one device');

      const started = await api<{ campaign: { id: number; total: number } }>(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns } });
      expect(started.code).toBe(20000);
      const campaignId = started.data.campaign.id;
      expect(started.data.campaign.total).toBe(30);

      // The online twenty finish; the offline ten wait, uncharged.
      await vi.waitFor(async () => expect((await phases(ts, campaignId)).done).toBe(20), { timeout: 30_000, interval: 100 });
      expect((await phases(ts, campaignId)).queued).toBe(10);
      expect(await pushCharges(ts, campaignId)).toHaveLength(20);

      // Five come back while this server runs.
      away.slice(0, 5).forEach((d) => d.start());
      await vi.waitFor(async () => expect((await phases(ts, campaignId)).done).toBe(25), { timeout: 30_000, interval: 100 });

      // The server restarts with five devices still waiting; they come back to the new server.
      await ts.stop();
      ts = await env.boot();
      token = (await loginAsAdmin(ts)).token;
      away.slice(5).forEach((d) => d.start());
      await vi.waitFor(async () => expect((await phases(ts, campaignId)).done).toBe(30), { timeout: 60_000, interval: 100 });

      const charges = await pushCharges(ts, campaignId);
      expect(charges).toHaveLength(30);
      expect(new Set(charges.map((c) => c.sn)).size).toBe(30);
      const coupons = await api<{ balance: number }>(ts.server.url, 'GET', '/push-coupon/info', { token });
      expect(coupons.data.balance).toBe(20);
      await vi.waitFor(async () => {
        const view = await api<{ state: string; success: number }>(ts.server.url, 'GET', `/push/campaign/${campaignId}`, { token });
        expect(view.data).toMatchObject({ state: 'finished', success: 30 });
      }, { timeout: 10_000, interval: 100 });
      const log = await api<{ total: number; list: { pushResult: number; downloadState: number; progress: number; installResult: number }[] }>(ts.server.url, 'POST', '/push-log/list', { token, body: { pageNum: 1, pageSize: 100, operationType: 'firmware' } });
      expect(log.data.total).toBe(30);
      expect(log.data.list.every((r) => r.pushResult === 1 && r.downloadState === 4 && r.progress === 100 && r.installResult === 0)).toBe(true);
      expect((await api(ts.server.url, 'POST', '/push-log/list', { token, body: { pageNum: 1, pageSize: 10 } })).message).toBe('Please add at least one of the operation type or device serial number');
    } finally {
      await ts.stop();
      await env.cleanup();
    }
  });
  it.runIf(target.available)('sends the push again to a device that accepted it and then fell silent for the stale period', { timeout: 60_000 }, async () => {
    const env = await restartableServer(target.name);
    const ts = await env.boot();
    try {
      const token = (await loginAsAdmin(ts)).token;
      const sn = `CMPSTALE${target.name === 'sqlite' ? 'S' : 'P'}`;
      const dev = device(ts, sn);
      sessions.push(dev);
      dev.start();
      await dev.waitLoggedIn();
      dev.stop();
      await vi.waitFor(async () => expect(await onlineState(ts, sn)).toBe(OnlineState.Offline), { timeout: 10_000 });
      const contentId = await uploadFirmware(ts.server.url, token);
      await buyCoupons(ts.server.url, token, token, 50);
      const started = await api<{ campaign: { id: number } }>(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns: [sn] } });
      const campaignId = started.data.campaign.id;
      await vi.waitFor(async () => expect((await phases(ts, campaignId)).queued).toBe(1), { timeout: 10_000, interval: 100 });
      // As if the device had accepted the push eleven minutes ago and said nothing since (stale after ten).
      const db = ts.server.db;
      await db.updateTable('push_targets').set({ phase: 'sent', updated_at: Date.now() - 11 * 60_000 }).where('campaign_id', '=', campaignId).execute();
      await vi.waitFor(async () => expect(await phases(ts, campaignId)).toEqual({ queued: 1 }), { timeout: 10_000, interval: 100 });
      // A recent acceptance is left alone.
      await db.updateTable('push_targets').set({ phase: 'sent', updated_at: Date.now() }).where('campaign_id', '=', campaignId).execute();
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await phases(ts, campaignId)).toEqual({ sent: 1 });
    } finally {
      await ts.stop();
      await env.cleanup();
    }
  });
  it.runIf(target.available)('a real agent downloads the pushed file with its own credentials and verifies its SHA-256', { timeout: 60_000 }, async () => {
    const env = await restartableServer(target.name);
    const ts = await env.boot();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-push-'));
    try {
      const token = (await loginAsAdmin(ts)).token;
      const installed: string[] = [];
      const agent = new DeviceSession({
        gatewayUrl: ts.server.deviceSocketUrl,
        sn: `AGT${target.name}`,
        enrollKey: ts.server.seeded.enrollKey,
        info: () => ({ model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 3 }),
        handlers: new Map([[Command.PushFile, pushFileHandler(httpPushJob({ gatewayUrl: ts.server.deviceSocketUrl, sn: `AGT${target.name}`, dir, log: () => {}, install: async (file) => void installed.push(fs.readFileSync(file, 'utf8')) }))]]),
        transport: wsTransport(),
        clock: systemClock,
      });
      sessions.push(agent);
      agent.start();
      await agent.waitLoggedIn();
      // Without the device's secret the file is not served.
      const contentId = await uploadFirmware(ts.server.url, token);
      const item = await ts.server.db.selectFrom('content_items').select('sha256').where('id', '=', contentId).executeTakeFirstOrThrow();
      expect((await fetch(`${ts.server.url}/content/blob/${item.sha256}`, { headers: { 'X-Device-Sn': agent.sn, 'X-Device-Secret': 'wrong' } })).status).toBe(401);
      await buyCoupons(ts.server.url, token, token, 50);
      const started = await api<{ campaign: { id: number } }>(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns: [agent.sn] } });
      await vi.waitFor(async () => expect((await phases(ts, started.data.campaign.id)).done).toBe(1), { timeout: 20_000, interval: 100 });
      expect(installed).toEqual(['system image bytes '.repeat(100)]);
      // Once the push is over, the file is no longer served to the device.
      expect((await fetch(`${ts.server.url}/content/blob/${item.sha256}`, { headers: { 'X-Device-Sn': agent.sn, 'X-Device-Secret': agent.secret ?? '' } })).status).toBe(403);
    } finally {
      await ts.stop();
      await env.cleanup();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(target.available)('accounts for every device of a larger fleet with random disconnects, one coupon each', { timeout: 180_000 }, async () => {
    const env = await restartableServer(target.name);
    const ts = await env.boot();
    // The 1,000 devices on the embedded database; fewer on PostgreSQL, where the same paths are exercised.
    const count = target.name === 'sqlite' ? 1000 : 300;
    try {
      const login = await loginAsAdmin(ts);
      const token = login.token;
      // The whole fleet in one push is over the four-eyes size (approvals.test.ts): pushed at once here.
      await api(ts.server.url, 'POST', '/approval/policy', { token, body: { orgId: login.orgId, wipes: true, bulkOver: 20, campaignOver: 0, ttlMinutes: 1440 } });
      const devs = Array.from({ length: count }, (_, i) => device(ts, `FLT${target.name === 'sqlite' ? 'S' : 'P'}${String(i).padStart(4, '0')}`));
      sessions.push(...devs);
      devs.forEach((d) => d.start());
      await Promise.all(devs.map((d) => d.waitLoggedIn()));
      const contentId = await uploadFirmware(ts.server.url, token);
      await buyCoupons(ts.server.url, token, token, 1500);
      const started = await api<{ campaign: { id: number } }>(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns: devs.map((d) => d.sn) } });
      const campaignId = started.data.campaign.id;
      // A seeded fifth of the fleet drops mid-push and comes back a moment later.
      const random = seededRandom(7);
      const droppers = devs.filter(() => random() < 0.2);
      for (const d of droppers) {
        d.stop();
        systemClock.setTimeout(() => d.start(), 200 + Math.floor(random() * 1500));
      }
      await vi.waitFor(async () => expect((await phases(ts, campaignId)).done).toBe(count), { timeout: 150_000, interval: 250 });
      const charges = await pushCharges(ts, campaignId);
      expect(charges).toHaveLength(count);
      expect(new Set(charges.map((c) => c.sn)).size).toBe(count);
      expect((await api<{ balance: number }>(ts.server.url, 'GET', '/push-coupon/info', { token })).data.balance).toBe(1500 - count);
    } finally {
      await ts.stop();
      await env.cleanup();
    }
  });
  it.runIf(target.available)('rolls out in stages, stops on the error threshold, resumes by override, and waits for approval by another account', { timeout: 90_000 }, async () => {
    const env = await restartableServer(target.name);
    const ts = await env.boot();
    try {
      const token = (await loginAsAdmin(ts)).token;
      const tag = target.name === 'sqlite' ? 'S' : 'P';
      const good = (i: number) => device(ts, `STG${tag}${i}`);
      // A device whose download always fails.
      const bad = new DeviceSession({
        gatewayUrl: ts.server.deviceSocketUrl,
        sn: `STG${tag}BAD`,
        enrollKey: ts.server.seeded.enrollKey,
        info: () => ({ model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 2 }),
        handlers: new Map([[Command.PushFile, pushFileHandler(async () => Promise.reject(new Error('disk full')))]]),
        transport: wsTransport(),
        clock: systemClock,
      });
      const devs = [good(0), good(1), bad, good(3), good(4), good(5)];
      sessions.push(...devs);
      devs.forEach((d) => d.start());
      await Promise.all(devs.map((d) => d.waitLoggedIn()));
      const contentId = await uploadFirmware(ts.server.url, token);
      await buyCoupons(ts.server.url, token, token, 100);
      const started = await api<{ campaign: { id: number; state: string } }>(ts.server.url, 'POST', '/push/start', {
        token,
        body: { kind: 'firmware', contentId, sns: devs.map((d) => d.sn), stageSize: 2, successPercent: 100, errorPercent: 50, maxRetries: 0, requireApproval: true },
      });
      const id = started.data.campaign.id;
      expect(started.data.campaign.state).toBe('awaiting_approval');
      expect((await api(ts.server.url, 'POST', '/push/approve', { token, body: { id } })).message).toBe('A push must be approved by another account');
      const admin = client(ts, token);
      const roleId = await createRole(admin, `approver${tag}`, ['img_list', 'img_push', 'push_log_list']);
      await createAccount(admin, `approver${tag}`, 'Approve_pw1', roleId);
      const approver = (await loginAs(ts, `approver${tag}`, 'Approve_pw1')).token;
      expect((await api<{ state: string }>(ts.server.url, 'POST', '/push/approve', { token: approver, body: { id } })).data.state).toBe('running');

      // Stage 0 succeeds, stage 1 has the failing device: half failed, the campaign stops itself.
      const view = () => api<{ state: string; currentStage: number; message: string; success: number; failed: number; queued: number; pushing: number }>(ts.server.url, 'GET', `/push/campaign/${id}`, { token });
      await vi.waitFor(async () => expect((await view()).data.state).toBe('paused'), { timeout: 30_000, interval: 100 });
      // A device of stage 1 already downloading when the stop came still finishes; stage 2 is not sent.
      await vi.waitFor(async () => expect((await view()).data).toMatchObject({ state: 'paused', currentStage: 1, failed: 1, pushing: 0 }), { timeout: 30_000, interval: 100 });
      const stopped = (await view()).data;
      expect(stopped.success + stopped.queued).toBe(5);
      expect(stopped.queued).toBeGreaterThanOrEqual(2);
      expect(stopped.message).toMatch(/error threshold 50%/);
      // Resuming overrides the stop and opens the last stage.
      expect((await api(ts.server.url, 'POST', '/push/resume', { token, body: { id } })).code).toBe(20000);
      await vi.waitFor(async () => expect((await view()).data).toMatchObject({ state: 'finished', success: 5, failed: 1 }), { timeout: 30_000, interval: 100 });
      // The failed device was charged once for its push, like the others.
      expect(await pushCharges(ts, id)).toHaveLength(6);
    } finally {
      await ts.stop();
      await env.cleanup();
    }
  });
});
