import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { systemClock } from '../../protocol/index.ts';
import { tokenDigest } from '../../server/auth/sessions.ts';
import { type Client, client, createOrg, createRole } from '../support/console-api.ts';
import { buyCoupons } from '../support/coupons.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/*
 * The push-log stream is a hijacked response that stays open; it used to keep the caller loaded when it
 * opened and stream on after logout, kick-out, freeze, role loss or expiry (security review M1). Each case
 * over a real HTTP stream: the stream says why and ends, and what it sends until then is for its caller.
 */

interface StreamEvent {
  type: string;
  reason?: string;
  sn?: string;
  id?: number;
  state?: string;
}

interface Stream {
  readonly events: StreamEvent[];
  /** Resolves when the server ends the response. */
  readonly ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
}

/** Follows /push-log/stream as the console does (fetch with X-Token), collecting its NDJSON events. */
async function openStream(ts: TestServer, token: string): Promise<Stream> {
  const req = http.get(`${ts.server.url}/push-log/stream`, { headers: { 'X-Token': token } });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => req.once('response', resolve).once('error', reject));
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('ndjson');
  const events: StreamEvent[] = [];
  let buffer = '';
  let done = false;
  res.setEncoding('utf8');
  res.on('error', () => undefined);
  res.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      events.push(JSON.parse(buffer.slice(0, nl)) as StreamEvent);
      buffer = buffer.slice(nl + 1);
    }
  });
  const ended = new Promise<void>((resolve) => res.once('end', () => ((done = true), resolve())));
  await vi.waitFor(() => expect(events[0]).toEqual({ type: 'hello' }), { timeout: 10_000 });
  return { events, ended, isEnded: () => done, close: () => req.destroy() };
}

const KEYS = ['push_log_list', 'custom-made-img_push-log', 'img_list', 'img_edit', 'img_push', 'device_list'];

let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}`;

describe('long-lived push-log streams follow their session and rights', () => {
  let ts: TestServer;
  let admin: Client;
  let adminToken: string;
  const devices: DeviceSession[] = [];
  const streams: Stream[] = [];

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    adminToken = (await loginAsAdmin(ts)).token;
    admin = client(ts, adminToken);
  });
  afterAll(async () => {
    streams.forEach((s) => s.close());
    devices.forEach((d) => d.dispose());
    await ts?.stop();
  });

  /** A customer organisation whose login holds `keys` through a role of its own. */
  async function tenant(keys: string[] = KEYS) {
    const roleId = await createRole(admin, unique('streamrole'), keys);
    const account = unique('streamacct');
    const orgId = await createOrg(admin, { name: unique('Stream org '), account, password: 'Tenant_pw1', roleId });
    const login = () => loginAs(ts, account, 'Tenant_pw1');
    return { orgId, roleId, account, login, first: await login() };
  }

  const stream = async (token: string) => {
    const s = await openStream(ts, token);
    streams.push(s);
    return s;
  };

  /** A device of the organisation, online, with firmware and coupons ready to push to it. */
  async function pushable(orgId: number, token: string) {
    const { enrollKey } = await admin.ok<{ enrollKey: string }>('GET', `/org/getOrg/${orgId}`);
    const d = createVirtualDevice({
      gatewayUrl: ts.server.deviceSocketUrl,
      sn: unique('LIVE'),
      enrollKey,
      info: { model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 2 },
      transport: wsTransport(),
      clock: systemClock,
      rebootDownMs: 100,
    });
    devices.push(d);
    d.start();
    await d.waitLoggedIn();
    const firmware = await uploadFirmware(ts.server.url, token);
    await buyCoupons(ts.server.url, token, adminToken, 50);
    const push = async () => (await client(ts, token).ok<{ campaign: { id: number } }>('POST', '/push/start', { kind: 'firmware', contentId: firmware, sns: [d.sn] })).campaign.id;
    return { push };
  }

  const closedWith = async (s: Stream, reason: string) => {
    await s.ended;
    expect(s.events.at(-1)).toEqual({ type: 'closed', reason });
  };

  it('carries its caller\'s pushes, and ends when its session logs out (review P2)', async () => {
    const t = await tenant();
    const other = await t.login();
    const { push } = await pushable(t.orgId, other.token);
    const s = await stream(t.first.token);
    const id = await push();
    await vi.waitFor(() => expect(s.events).toContainEqual(expect.objectContaining({ type: 'campaign', id })), { timeout: 10_000 });
    await client(ts, t.first.token).ok('GET', '/home/logout');
    await closedWith(s, 'session ended');
    // The other session of the same account is not touched.
    const kept = await stream(other.token);
    expect(kept.isEnded()).toBe(false);
  });

  it('ends on a kick-out, on freezing the organisation, and at the session expiry', async () => {
    const kicked = await tenant();
    const s1 = await stream(kicked.first.token);
    await admin.ok('GET', `/org/kitoutUser/${kicked.first.accountId}`);
    await closedWith(s1, 'session ended');

    const frozen = await tenant();
    const s2 = await stream(frozen.first.token);
    await admin.ok('POST', '/org/freeze', { id: frozen.orgId, freezeState: 2 });
    await closedWith(s2, 'session ended');

    // A session a few hundred milliseconds from its end: the stream closes then, idle as it is.
    const expiring = await tenant();
    await ts.server.db.updateTable('sessions').set({ expires_at: Date.now() + 400 }).where('token_hash', '=', tokenDigest(expiring.first.token)).execute();
    const s3 = await stream(expiring.first.token);
    await closedWith(s3, 'session expired');
  });

  it('follows role changes: one that keeps push_log_list keeps it streaming, losing the key ends it', async () => {
    const t = await tenant();
    const other = await t.login();
    const { push } = await pushable(t.orgId, other.token);
    const s = await stream(t.first.token);
    const roleName = (await admin.ok<{ list: { id: number; name: string }[] }>('POST', '/permit/getRoleList', { pageNum: 1, pageSize: 100 })).list.find((r) => r.id === t.roleId)?.name;
    await admin.ok('POST', '/permit/updateRole', { id: t.roleId, name: roleName, summary: 'wider', permissionList: [...KEYS, 'app_list'] });
    const id = await push();
    await vi.waitFor(() => expect(s.events).toContainEqual(expect.objectContaining({ type: 'campaign', id })), { timeout: 10_000 });
    expect(s.isEnded()).toBe(false);

    await admin.ok('POST', '/permit/updateRole', { id: t.roleId, name: roleName, summary: 'no log', permissionList: KEYS.filter((k) => k !== 'push_log_list') });
    await closedWith(s, 'permission lost');
  });
});
