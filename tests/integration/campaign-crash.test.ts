import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DeviceSession } from '../../agent/device-session.ts';
import { pushFileHandler, simulatedPushJob } from '../../agent/push/push-file.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, systemClock } from '../../protocol/index.ts';
import { buyCoupons } from '../support/coupons.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { api } from '../support/server.ts';
import { adminLoginAt, startWorkerNode, type WorkerNode } from '../support/worker-node.ts';

// A push campaign survives the server being killed mid-dispatch (SIGKILL: no shutdown hook runs): the
// restarted server picks it up from the database, every device ends installed, every device is charged
// exactly one coupon, and no device downloads twice (a device joins a repeated PushFile to the push it
// already has, agent/push/push-file.ts; the server must not charge again when it sends one).

const DEVICES = 200;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campaign-crash-'));
const devices: DeviceSession[] = [];
let node: WorkerNode | undefined;

/** Reads the node's embedded database directly (WAL: readable while the node writes, and after it died). */
function query<T>(sql: string, ...params: (string | number)[]): T[] {
  const db = new DatabaseSync(path.join(dataDir, 'control-center.sqlite'), { readOnly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
const doneCount = (campaignId: number) => query<{ n: number }>("select count(*) as n from push_targets where campaign_id = ? and phase = 'done'", campaignId)[0]?.n ?? 0;

afterAll(async () => {
  devices.forEach((d) => d.dispose());
  await node?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a push campaign when the server is killed mid-dispatch', () => {
  it('resumes after a restart: every device installed once and charged one coupon', { timeout: 180_000 }, async () => {
    node = await startWorkerNode(dataDir, 1);
    const port = Number(new URL(node.url).port);
    const gatewayUrl = node.deviceSocketUrl;
    const enrollKey = node.enrollKey;

    // Downloads each device started, by serial: a second download of the same push would show here.
    const downloads = new Map<string, number>();
    const slowPush = simulatedPushJob({ clock: systemClock, stepMs: 150 });
    for (let i = 0; i < DEVICES; i++) {
      const sn = `CRASH${String(i).padStart(4, '0')}`;
      devices.push(
        new DeviceSession({
          gatewayUrl,
          sn,
          enrollKey,
          info: () => ({ model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 2 }),
          handlers: new Map([
            [Command.PushFile, pushFileHandler((req, report, session) => {
              downloads.set(sn, (downloads.get(sn) ?? 0) + 1);
              return slowPush(req, report, session);
            })],
          ]),
          transport: wsTransport(),
          clock: systemClock,
          tuning: { backoff: { initialMs: 100, maxMs: 400, jitter: 1 } },
        }),
      );
    }
    devices.forEach((d) => d.start());
    await Promise.all(devices.map((d) => d.waitLoggedIn()));

    const admin = await adminLoginAt(node.url);
    let { token } = admin;
    // The campaign itself is this test's subject: its organisation's four-eyes size is turned off (200 devices
    // would otherwise wait for a second account's approval, issue 23).
    const policy = await api(node.url, 'POST', '/approval/policy', { token, body: { orgId: admin.org.id, wipes: true, bulkOver: 20, campaignOver: 0, ttlMinutes: 1440 } });
    expect(policy.code).toBe(20000);
    const contentId = await uploadFirmware(node.url, token);
    expect((await buyCoupons(node.url, token, token, 250)).balance).toBe(250);
    const started = await api<{ campaign: { id: number } }>(node.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId, sns: devices.map((d) => d.sn) } });
    expect(started.code).toBe(20000);
    const campaignId = started.data.campaign.id;

    // Killed once some devices are done and the rest are mid-download or not yet reached.
    await vi.waitFor(() => expect(doneCount(campaignId)).toBeGreaterThanOrEqual(20), { timeout: 60_000, interval: 20 });
    const pid = node.primary.pid ?? 0;
    const died = new Promise((r) => node?.primary.once('exit', r));
    process.kill(-pid, 'SIGKILL');
    await died;
    const doneAtKill = doneCount(campaignId);
    expect(doneAtKill).toBeLessThan(DEVICES);

    // The same data directory and port: the devices find the server again by themselves.
    node = await startWorkerNode(dataDir, 1, port);
    token = (await adminLoginAt(node.url)).token;
    await vi.waitFor(() => expect(doneCount(campaignId)).toBe(DEVICES), { timeout: 120_000, interval: 250 });

    const view = await api<{ state: string; success: number }>(node.url, 'GET', `/push/campaign/${campaignId}`, { token });
    expect(view.data).toMatchObject({ state: 'finished', success: DEVICES });
    const charges = query<{ sn: string }>("select sn from push_coupon_ledger where campaign_id = ? and reason = 'push'", campaignId);
    expect(charges).toHaveLength(DEVICES);
    expect(new Set(charges.map((c) => c.sn)).size).toBe(DEVICES);
    expect((await api<{ balance: number }>(node.url, 'GET', '/push-coupon/info', { token })).data.balance).toBe(250 - DEVICES);
    expect(downloads.size).toBe(DEVICES);
    expect([...downloads.values()].filter((n) => n !== 1)).toEqual([]);
    process.stdout.write(`[campaign crash] killed with ${doneAtKill} of ${DEVICES} done; after the restart ${DEVICES} done, ${charges.length} charges\n`);
  });
});
