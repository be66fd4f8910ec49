import fs from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { PushResult, systemClock } from '../../protocol/index.ts';
import { type RunningServer } from '../../server/server.ts';
import { clusterServicesAvailable, startClusterNode } from '../support/cluster.ts';
import { freshPgSchema } from '../support/databases.ts';
import { buyCoupons } from '../support/coupons.ts';
import { api, loginAsAdmin, type TestServer } from '../support/server.ts';

const available = await clusterServicesAvailable('campaigns cluster test');

interface StreamEvent {
  type: string;
  sn?: string;
  pushResult?: number;
  id?: number;
  state?: string;
}

/** Follows /push-log/stream as a console does, collecting its NDJSON events. */
async function follow(url: string, token: string): Promise<{ events: StreamEvent[]; close: () => void }> {
  const req = http.get(`${url}/push-log/stream`, { headers: { 'X-Token': token } });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => req.once('response', resolve).once('error', reject));
  expect(res.statusCode).toBe(200);
  const events: StreamEvent[] = [];
  let buffer = '';
  res.setEncoding('utf8');
  res.on('error', () => undefined);
  res.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      events.push(JSON.parse(buffer.slice(0, nl)) as StreamEvent);
      buffer = buffer.slice(nl + 1);
    }
  });
  return { events, close: () => req.destroy() };
}

describe.skipIf(!available)('push campaigns on two nodes sharing PostgreSQL and NATS', () => {
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let dropSchema: () => Promise<void>;
  let pgSchema = '';
  const dirs: string[] = [];
  const devices: DeviceSession[] = [];

  const start = () => startClusterNode(pgSchema, dirs);

  beforeAll(async () => {
    const schema = await freshPgSchema();
    pgSchema = schema.schema;
    dropSchema = schema.drop;
    nodeA = await start();
    nodeB = await start();
  });

  afterAll(async () => {
    for (const d of devices) d.stop();
    await nodeA?.close();
    await nodeB?.close();
    await dropSchema?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('progress written on the node holding the devices reaches /push-log/stream on the other node', { timeout: 60_000 }, async () => {
    // Every device is on node A, so their progress reports are handled and written there only.
    for (let i = 0; i < 4; i++) {
      devices.push(
        createVirtualDevice({
          gatewayUrl: nodeA.deviceSocketUrl,
          sn: `CLU${i}`,
          enrollKey: nodeA.seeded.enrollKey,
          info: { model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 2 },
          transport: wsTransport(),
          clock: systemClock,
          rebootDownMs: 1_000,
        }),
      );
    }
    devices.forEach((d) => d.start());
    await Promise.all(devices.map((d) => d.waitLoggedIn()));
    expect(nodeB.gateway.deviceCount).toBe(0);

    const b = { server: nodeB } as TestServer;
    const { token, orgId } = await loginAsAdmin(b);
    const now = Date.now();
    // These simulated devices do not download (no pushDownload), so a content row is enough.
    const item = await nodeB.db
      .insertInto('content_items')
      .values({ kind: 'firmware', org_id: orgId, account_id: null, parent_id: null, name: 'cluster-firmware', file_name: 'c.img', size: 1024, sha256: 'b'.repeat(64), item_type: 'system', version: '241020.10', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await buyCoupons(nodeB.url, token, token, 50)).balance).toBe(50);

    const stream = await follow(nodeB.url, token);
    try {
      const started = await api<{ campaign: { id: number } }>(nodeB.url, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId: item.id, sns: devices.map((d) => d.sn) } });
      const id = started.data.campaign.id;
      await vi.waitFor(
        () => {
          const succeeded = new Set(stream.events.filter((e) => e.type === 'target' && e.pushResult === PushResult.Success).map((e) => e.sn));
          expect([...succeeded].sort()).toEqual(devices.map((d) => d.sn).sort());
          expect(stream.events).toContainEqual(expect.objectContaining({ type: 'campaign', id, state: 'finished' }));
        },
        { timeout: 30_000, interval: 100 },
      );
      // The stream agrees with the record.
      const view = await api<{ success: number; failed: number }>(nodeB.url, 'GET', `/push/campaign/${id}`, { token });
      expect(view.data).toMatchObject({ success: devices.length, failed: 0 });
    } finally {
      stream.close();
    }
  });

  it('a stream on one node ends when its session logs out through the other node (review M1)', { timeout: 30_000 }, async () => {
    const { token } = await loginAsAdmin({ server: nodeB } as TestServer);
    const stream = await follow(nodeB.url, token);
    try {
      expect((await api(nodeA.url, 'GET', '/home/logout', { token })).code).toBe(20000);
      await vi.waitFor(() => expect(stream.events).toContainEqual({ type: 'closed', reason: 'session ended' }), { timeout: 10_000, interval: 50 });
    } finally {
      stream.close();
    }
  });
});
