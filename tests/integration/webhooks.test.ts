import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { Command } from '../../protocol/index.ts';
import type { WebhookDeliveryView, WebhookPayload } from '../../protocol/api/integrations.ts';
import { loadConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/server.ts';
import { hmacHex, SIGNATURE_HEADER, TIMESTAMP_HEADER, TIMESTAMPED_SIGNATURE_HEADER, verifySignature } from '../../server/webhooks/signing.ts';
import { client, type Client, createOrg } from '../support/console-api.ts';
import { buyCoupons } from '../support/coupons.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { clusterServicesAvailable, startClusterNode } from '../support/cluster.ts';
import { dbTargets, freshPgSchema } from '../support/databases.ts';
import { loginAs, loginAsAdmin, startTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';

// Issue 23: webhooks get their organisation's events, signed, within moments; a delivery the receiver
// missed is retried, also by the server after a restart (deliveries are in the database).

interface Received {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly payload: WebhookPayload<{ sn: string; msgId?: number; held?: boolean; type?: string }>;
}

/** An HTTP receiver on 127.0.0.1 that records every POST and answers 204. */
class Receiver {
  readonly got: Received[] = [];
  readonly #waiters = new Set<() => void>();
  readonly server: http.Server;

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.got.push({ headers: req.headers, body, payload: JSON.parse(body) as Received['payload'] });
        res.writeHead(204).end();
        for (const w of this.#waiters) w();
      });
    });
  }

  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The first delivery matching `match`, waiting up to `ms` for it. */
  waitFor(match: (r: Received) => boolean, ms: number): Promise<Received> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.got.find(match);
        if (!found) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`no matching delivery within ${ms} ms (got ${this.got.map((g) => g.payload.event).join(', ') || 'none'})`));
      }, ms);
      this.#waiters.add(check);
      check();
    });
  }
}

const offlineOf = (sn: string) => (r: Received) => r.payload.event === 'device.offline' && r.payload.data.sn === sn;

function expectSigned(r: Received, secret: string): void {
  expect(verifySignature(secret, r.body, String(r.headers[SIGNATURE_HEADER]))).toBe(true);
  const ts = String(r.headers[TIMESTAMP_HEADER]);
  expect(ts).toMatch(/^\d+$/);
  expect(r.headers[TIMESTAMPED_SIGNATURE_HEADER]).toBe(`t=${ts},v1=${hmacHex(secret, `${ts}.${r.body}`)}`);
  expect(verifySignature('another secret', r.body, String(r.headers[SIGNATURE_HEADER]))).toBe(false);
}

/** A port nothing listens on (taken and let go). */
async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const targets = await dbTargets();

const GIB = 1024 ** 3;

let serial = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(serial++).toString(36)}`;

describe.each(targets)('webhooks on $name', (target) => {
  let ts: TestServer;
  let admin: Client & { token: string };
  const devices: DeviceSession[] = [];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    if (!target.available) return;
    ts = await startTestServer(target.name);
    const { token } = await loginAsAdmin(ts);
    admin = { ...client(ts, token), token };
  });
  afterAll(async () => {
    for (const d of devices) d.stop();
    for (const r of receivers) await r.close();
    await ts?.stop();
  });

  const orgWithHook = async (secret: string): Promise<{ orgId: number; user: Client; token: string; receiver: Receiver }> => {
    const account = unique('hk');
    const orgId = await createOrg(admin, { name: unique('Hook org '), account, password: 'Hook_pw1' });
    const { token } = await loginAs(ts, account, 'Hook_pw1');
    const user = client(ts, token);
    const receiver = new Receiver();
    receivers.push(receiver);
    const port = await receiver.listen();
    await user.ok('POST', '/webhook/add', { url: `http://127.0.0.1:${port}/hook`, secret, events: ['device.offline', 'device.online'] });
    return { orgId, user, token, receiver };
  };

  it.runIf(target.available)("a receiver gets its organisation's device.offline, signed, within 2 s of the device dropping; another organisation's hook does not", async () => {
    const a = await orgWithHook('secret-of-a');
    const b = await orgWithHook('secret-of-b');
    const sn = unique('HOOKA').toUpperCase();
    await startVirtualDevices(ts, [sn], devices, { tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } } });
    const device = devices.at(-1) as DeviceSession;
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: a.orgId });
    // Back under its new organisation: A's hook hears it come online.
    await a.receiver.waitFor((r) => r.payload.event === 'device.online' && r.payload.data.sn === sn, 10_000);

    device.stop();
    const got = await a.receiver.waitFor(offlineOf(sn), 2_000);
    expectSigned(got, 'secret-of-a');
    expect(got.payload).toMatchObject({ event: 'device.offline', orgId: a.orgId, data: { sn } });
    expect(got.headers['content-type']).toBe('application/json');

    // The outcome is written once the receiver has answered: wait for it.
    const recorded = async () => (await a.user.ok<WebhookDeliveryView[]>('POST', '/webhook/deliveries', {})).find((d) => d.event === 'device.offline' && d.body === got.body && d.status !== 'pending');
    let delivery = await recorded();
    while (!delivery) {
      await new Promise((r) => setTimeout(r, 20));
      delivery = await recorded();
    }
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, statusCode: 204 });
    // B heard nothing of A's device, and cannot see A's deliveries.
    expect(b.receiver.got.filter((r) => r.payload.data.sn === sn)).toEqual([]);
    expect((await b.user.ok<WebhookDeliveryView[]>('POST', '/webhook/deliveries', {})).filter((d) => d.body.includes(sn))).toEqual([]);
  });

  it.runIf(target.available)('redelivers a delivery on request, with the same event id', async () => {
    const c = await orgWithHook('secret-of-c');
    const sn = unique('HOOKC').toUpperCase();
    await startVirtualDevices(ts, [sn], devices, { tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } } });
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: c.orgId });
    await c.receiver.waitFor((r) => r.payload.event === 'device.online' && r.payload.data.sn === sn, 10_000);
    (devices.at(-1) as DeviceSession).stop();
    const first = await c.receiver.waitFor(offlineOf(sn), 2_000);
    const [delivery] = (await c.user.ok<WebhookDeliveryView[]>('POST', '/webhook/deliveries', {})).filter((d) => d.body === first.body);
    await c.user.ok('POST', '/webhook/redeliver', { id: delivery?.id });
    await c.receiver.waitFor((r) => r !== first && offlineOf(sn)(r), 2_000);
    expect(c.receiver.got.filter(offlineOf(sn)).map((r) => r.payload.id)).toEqual([first.payload.id, first.payload.id]);
  });

  it.runIf(target.available)('a command result reaches the hook of the device\'s organisation', async () => {
    const d = await orgWithHook('secret-of-d');
    const sn = unique('HOOKD').toUpperCase();
    await startVirtualDevices(ts, [sn], devices, { tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } } });
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: d.orgId });
    await d.receiver.waitFor((r) => r.payload.event === 'device.online' && r.payload.data.sn === sn, 10_000);
    const { id } = await d.user.ok<{ id: number }>('POST', '/webhook/add', { url: String(d.receiver.url), secret: 'secret-of-d', events: ['command.result'] });
    expect(id).toBeGreaterThan(0);
    await admin.ok('POST', '/device-ops/command', { sn, msgId: Command.BaseInfo });
    const got = await d.receiver.waitFor((r) => r.payload.event === 'command.result' && r.payload.data.sn === sn, 2_000);
    expectSigned(got, 'secret-of-d');
    expect(got.payload).toMatchObject({ orgId: d.orgId, data: { sn, msgId: Command.BaseInfo, result: 0, by: 'admin' } });

    // A command held for an offline device: its result is told when the device is back and answers.
    const device = devices.at(-1) as DeviceSession;
    device.stop();
    await d.receiver.waitFor(offlineOf(sn), 2_000);
    const held = await admin.ok<{ delivered: boolean }>('POST', '/device-ops/command', { sn, msgId: Command.BaseInfo, ttlSeconds: 600 });
    expect(held.delivered).toBe(false);
    device.start();
    const later = await d.receiver.waitFor((r) => r.payload.event === 'command.result' && r.payload.data.sn === sn && r !== got, 10_000);
    expect(later.payload).toMatchObject({ orgId: d.orgId, data: { sn, msgId: Command.BaseInfo, result: 0, held: true } });
  });

  it.runIf(target.available)('an abnormal load a device reports reaches the hook once it is recorded', async () => {
    const e = await orgWithHook('secret-of-e');
    await e.user.ok('POST', '/webhook/add', { url: e.receiver.url, secret: 'secret-of-e', events: ['abnormal.raised'] });
    const sn = unique('HOOKE').toUpperCase();
    await startVirtualDevices(ts, [sn], devices, { tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } } });
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: e.orgId });
    await e.receiver.waitFor((r) => r.payload.event === 'device.online' && r.payload.data.sn === sn, 10_000);
    const device = devices.at(-1) as DeviceSession;
    // Below the threshold (90 %), then above it: one crossing.
    device.engine.send({ msgId: Command.StatusUpload, data: { cpu: 10, memUsed: GIB, memTotal: 4 * GIB } });
    device.engine.send({ msgId: Command.StatusUpload, data: { cpu: 97, memUsed: GIB, memTotal: 4 * GIB } });
    // The simulated device's own statuses may cross another threshold first (its storage is drawn from
    // its serial, which is random here: low_storage was seen in CI); the hook hears each, so wait for this one.
    const got = await e.receiver.waitFor((r) => r.payload.event === 'abnormal.raised' && r.payload.data.sn === sn && r.payload.data.type === 'cpu_high', 10_000);
    expectSigned(got, 'secret-of-e');
    expect(got.payload).toMatchObject({ orgId: e.orgId, data: { sn, type: 'cpu_high' } });
  });

  it.runIf(target.available)('a paid order and a finished campaign reach the hook of the organisation they belong to', { timeout: 60_000 }, async () => {
    const f = await orgWithHook('secret-of-f');
    await f.user.ok('POST', '/webhook/add', { url: f.receiver.url, secret: 'secret-of-f', events: ['order.paid', 'campaign.finished'] });
    const sn = unique('HOOKF').toUpperCase();
    await startVirtualDevices(ts, [sn], devices, { tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } } });
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: f.orgId });
    await f.receiver.waitFor((r) => r.payload.event === 'device.online' && r.payload.data.sn === sn, 10_000);

    const { orderNo } = await buyCoupons(ts.server.url, f.token, admin.token, 50);
    const paid = await f.receiver.waitFor((r) => r.payload.event === 'order.paid', 5_000);
    expectSigned(paid, 'secret-of-f');
    expect(paid.payload).toMatchObject({ orgId: f.orgId, data: { orderNo, type: 'push_ticket' } });

    const contentId = await uploadFirmware(ts.server.url, f.token);
    const started = await f.user.ok<{ campaign: { id: number } }>('POST', '/push/start', { kind: 'firmware', contentId, sns: [sn] });
    const finished = await f.receiver.waitFor((r) => r.payload.event === 'campaign.finished', 45_000);
    expectSigned(finished, 'secret-of-f');
    expect(finished.payload).toMatchObject({ orgId: f.orgId, data: { campaignId: started.campaign.id } });
  });

  it.runIf(target.available)('refuses a non-http URL and unknown events, and removes a hook', async () => {
    expect((await admin.call('POST', '/webhook/add', { url: 'ftp://example.test/', secret: 's', events: ['device.offline'] })).code).toBe(40001);
    expect((await admin.call('POST', '/webhook/add', { url: 'http://127.0.0.1:9/', secret: 's', events: ['no.such'] })).code).toBe(40001);
    const { id } = await admin.ok<{ id: number }>('POST', '/webhook/add', { url: 'http://127.0.0.1:9/', secret: 's', events: ['order.paid'] });
    await admin.ok('DELETE', `/webhook/${id}`);
    expect((await admin.ok<{ id: number }[]>('POST', '/webhook/list', {})).map((h) => h.id)).not.toContain(id);
    expect((await admin.call('DELETE', `/webhook/${id}`)).code).toBe(40004);
  });
});

describe('webhooks across a restart', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-webhooks-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', ...(process.env.CONSOLE_DIR ? { CONSOLE_DIR: process.env.CONSOLE_DIR } : {}) });
  let server: RunningServer | undefined;
  const receiver = new Receiver();
  const devices: DeviceSession[] = [];

  afterAll(async () => {
    for (const d of devices) d.stop();
    await server?.close();
    await receiver.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a delivery the receiver was down for reaches it once it is up, after the server restarted', async () => {
    server = await startServer(config);
    const admin = client({ server }, (await loginAsAdmin({ server })).token);
    const port = await freePort();
    await admin.ok('POST', '/webhook/add', { url: `http://127.0.0.1:${port}/hook`, secret: 'restart-secret', events: ['device.offline'] });
    const sn = unique('HOOKR').toUpperCase();
    await startVirtualDevices({ server }, [sn], devices);
    (devices.at(-1) as DeviceSession).stop();

    // The receiver is down: the first attempt fails and the delivery waits for a retry.
    const failed = async () => (await admin.ok<WebhookDeliveryView[]>('POST', '/webhook/deliveries', {})).find((d) => d.body.includes(sn) && d.attempts >= 1);
    let pending = await failed();
    while (!pending) {
      await new Promise((r) => setTimeout(r, 50));
      pending = await failed();
    }
    expect(pending).toMatchObject({ status: 'pending', statusCode: null });
    await server.close();
    server = undefined;

    await receiver.listen(port);
    server = await startServer(config);
    const got = await receiver.waitFor(offlineOf(sn), 30_000);
    expectSigned(got, 'restart-secret');
  });
});

const clusterUp = await clusterServicesAvailable('webhooks cluster test');

describe.skipIf(!clusterUp)('webhooks on two nodes sharing PostgreSQL and NATS', () => {
  const dirs: string[] = [];
  const devices: DeviceSession[] = [];
  const receiver = new Receiver();
  let nodeA: RunningServer | undefined;
  let nodeB: RunningServer | undefined;
  let dropSchema: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const schema = await freshPgSchema();
    dropSchema = schema.drop;
    nodeA = await startClusterNode(schema.schema, dirs);
    nodeB = await startClusterNode(schema.schema, dirs);
  });
  afterAll(async () => {
    for (const d of devices) d.stop();
    await nodeA?.close();
    await nodeB?.close();
    await dropSchema?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    await receiver.close().catch(() => undefined);
  });

  it('a device dropping from node A reaches a hook added through node B once, signed', async () => {
    const a = nodeA as RunningServer;
    const b = nodeB as RunningServer;
    const port = await receiver.listen();
    const admin = client({ server: b }, (await loginAsAdmin({ server: b })).token);
    await admin.ok('POST', '/webhook/add', { url: `http://127.0.0.1:${port}/hook`, secret: 'cluster-secret', events: ['device.online', 'device.offline'] });
    const sn = unique('HOOKN').toUpperCase();
    await startVirtualDevices({ server: a }, [sn], devices);
    await receiver.waitFor((r) => r.payload.event === 'device.online' && r.payload.data.sn === sn, 10_000);
    (devices.at(-1) as DeviceSession).stop();
    const got = await receiver.waitFor(offlineOf(sn), 2_000);
    expectSigned(got, 'cluster-secret');
    // Both nodes' dispatchers scan the same table: the delivery is recorded once, and sent once.
    const rows = async () => (await admin.ok<WebhookDeliveryView[]>('POST', '/webhook/deliveries', {})).filter((d) => d.event === 'device.offline' && d.body.includes(sn));
    let recorded = await rows();
    while (recorded.some((d) => d.status === 'pending')) {
      await new Promise((r) => setTimeout(r, 20));
      recorded = await rows();
    }
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(receiver.got.filter(offlineOf(sn))).toHaveLength(1);
  });
});
