import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CloseCode, Command, type Envelope, Result } from '../../protocol/index.ts';
import type { ApiTokenCreated, ApiTokenView } from '../../protocol/api/integrations.ts';
import type { OperationLogEntry } from '../../protocol/api/reports.ts';
import { client, type Client, createAccount, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';
import { replyDataFor } from '../support/device-replies.ts';

// Issue 23: API tokens, accepted as `Authorization: Bearer` on REST and on the console socket, holding only
// their own keys that the account still holds, refused once revoked or expired, audited as the token.

interface Answer<T = unknown> {
  code: number;
  data: T;
  message: string;
  key?: string;
}

async function bearer<T = unknown>(ts: TestServer, token: string, method: 'POST' | 'DELETE', url: string, body?: unknown): Promise<Answer<T>> {
  const res = await fetch(`${ts.server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Answer<T>;
}

/** A device that answers every command with success and remembers what it was sent. */
async function rawDevice(ts: TestServer, sn: string): Promise<{ ws: WebSocket; got: number[] }> {
  const ws = new WebSocket(`${ts.server.deviceSocketUrl}?sn=${sn}&enroll=${encodeURIComponent(ts.server.seeded.enrollKey)}`);
  const got: number[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const loggedIn = new Promise<void>((resolve) => {
    ws.on('message', (d: Buffer) => {
      const env = JSON.parse(d.toString()) as Envelope;
      if (env.msgId === Command.DeviceLogin) return resolve();
      if (env.result !== undefined || env.msgId === Command.Heartbeat) return;
      got.push(env.msgId);
      ws.send(JSON.stringify({ msgId: env.msgId, cid: env.cid, result: 0, data: replyDataFor(env.msgId) }));
    });
  });
  ws.send(JSON.stringify({ msgId: Command.DeviceLogin, cid: 'login', data: { model: 'raw', systemType: 'android' } }));
  await loggedIn;
  return { ws, got };
}

/** A console socket opened with only `Authorization: Bearer` (no token, account or organisation in the URL). */
async function bearerConsole(ts: TestServer, token: string): Promise<{ ws: WebSocket; ask(msgId: number, sn: string): Promise<Envelope>; closed: Promise<number> }> {
  const ws = new WebSocket(`${ts.server.url.replace('http', 'ws')}/websocket`, { headers: { authorization: `Bearer ${token}` } });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const waiting = new Map<string, (env: Envelope) => void>();
  ws.on('message', (d: Buffer) => {
    const env = JSON.parse(d.toString()) as Envelope;
    if (env.cid !== undefined && env.result !== undefined) waiting.get(env.cid)?.(env);
  });
  let n = 0;
  return {
    ws,
    closed,
    ask: (msgId, sn) =>
      new Promise<Envelope>((resolve) => {
        const cid = `t${n++}`;
        waiting.set(cid, resolve);
        ws.send(JSON.stringify({ msgId, cid, sn, data: {} }));
      }),
  };
}

const targets = await dbTargets();

let serial = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(serial++).toString(36)}`;

describe.each(targets)('API tokens on $name', (target) => {
  let ts: TestServer;
  let admin: Client;
  let device: { ws: WebSocket; got: number[] };
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    if (!target.available) return;
    ts = await startTestServer(target.name);
    admin = client(ts, (await loginAsAdmin(ts)).token);
    device = await rawDevice(ts, 'TOKEN-DEV');
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    device?.ws.close();
    await ts?.stop();
  });

  const create = (keys: string[], extra: { expiresAt?: number } = {}, with_: Client = admin) =>
    with_.ok<ApiTokenCreated>('POST', '/api-token/create', { name: unique('tok'), keys, ...extra });

  it.runIf(target.available)('a token with only device_list lists devices and is refused a reboot, over REST and the console socket', async () => {
    const { token, id } = await create(['device_list']);
    expect(token).toMatch(/^dcc_/);
    const unused = (await admin.ok<ApiTokenView[]>('POST', '/api-token/list', {})).find((t) => t.id === id);
    expect(unused).toMatchObject({ keys: ['device_list'], lastUsedAt: null, revokedAt: null, expiresAt: null });
    const list = await bearer<{ list: { sn: string }[] }>(ts, token, 'POST', '/device/list', { pageNum: 1, pageSize: 10 });
    expect(list.code).toBe(20000);
    expect(list.data.list.map((d) => d.sn)).toContain('TOKEN-DEV');
    expect((await admin.ok<ApiTokenView[]>('POST', '/api-token/list', {})).find((t) => t.id === id)?.lastUsedAt).toEqual(expect.any(Number));

    const rebootsBefore = device.got.filter((m) => m === Command.Reboot).length;
    const rest = await bearer(ts, token, 'POST', '/device-ops/command', { sn: 'TOKEN-DEV', msgId: Command.Reboot });
    expect(rest.code).toBe(40003);

    const socket = await bearerConsole(ts, token);
    sockets.push(socket.ws);
    expect(await socket.ask(Command.Reboot, 'TOKEN-DEV')).toMatchObject({ result: Result.Fail, data: { message: 'Permission denied or Session expire' } });
    expect(device.got.filter((m) => m === Command.Reboot).length).toBe(rebootsBefore);

    // The same socket path with a token that holds the key reaches the device: the refusal was the key's.
    const strong = await create(['device_list', 'device_reboot']);
    const allowed = await bearerConsole(ts, strong.token);
    sockets.push(allowed.ws);
    expect(await allowed.ask(Command.Reboot, 'TOKEN-DEV')).toMatchObject({ result: Result.Success });
    expect(device.got.filter((m) => m === Command.Reboot).length).toBe(rebootsBefore + 1);
  });

  it.runIf(target.available)('a revoked token is refused on REST, and its open console socket is closed', async () => {
    const { token, id } = await create(['device_list']);
    const socket = await bearerConsole(ts, token);
    sockets.push(socket.ws);
    expect((await bearer(ts, token, 'POST', '/device/list', {})).code).toBe(20000);
    await admin.ok('DELETE', `/api-token/${id}`);
    expect(await socket.closed).toBe(CloseCode.SessionEnded);
    expect((await bearer(ts, token, 'POST', '/device/list', {})).code).toBe(3);
    const listed = await admin.ok<ApiTokenView[]>('POST', '/api-token/list', {});
    expect(listed.find((t) => t.id === id)?.revokedAt).toEqual(expect.any(Number));
    // Never the token itself, nor its digest.
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  it.runIf(target.available)('an expired token is refused; an expiry in the past cannot be set', async () => {
    const refused = await admin.call('POST', '/api-token/create', { name: unique('old'), keys: ['device_list'], expiresAt: Date.now() - 1000 });
    expect(refused.code).toBe(40001);
    const { token, id } = await create(['device_list'], { expiresAt: Date.now() + 3_600_000 });
    expect((await bearer(ts, token, 'POST', '/device/list', {})).code).toBe(20000);
    // Expire it where it is stored, as an hour passing would.
    await ts.server.db.updateTable('api_tokens').set({ expires_at: Date.now() - 1 }).where('id', '=', id).execute();
    expect((await bearer(ts, token, 'POST', '/device/list', {})).code).toBe(3);
  });

  it.runIf(target.available)('a token cannot hold a key its account lacks, and loses a key when its account does', async () => {
    const role = await createRole(admin, unique('tokrole'), ['device_list', 'device_base_info']);
    const account = unique('tk');
    await createAccount(admin, account, 'Token_pw1', role);
    const user = client(ts, (await loginAs(ts, account, 'Token_pw1')).token);
    const refused = await user.call('POST', '/api-token/create', { name: 'too much', keys: ['device_list', 'device_reboot'] });
    expect(refused.code).toBe(40003);
    expect((refused as { key?: string }).key).toBe('apiToken.keyNotHeld');

    const { token } = await create(['device_list', 'device_base_info'], {}, user);
    const socket = await bearerConsole(ts, token);
    sockets.push(socket.ws);
    expect(await socket.ask(Command.BaseInfo, 'TOKEN-DEV')).toMatchObject({ result: Result.Success });
    expect((await bearer(ts, token, 'POST', '/device-ops/command', { sn: 'TOKEN-DEV', msgId: Command.BaseInfo })).code).toBe(20000);
    // The account loses the key: the token, open socket included, loses it too.
    await admin.ok('POST', '/permit/updateRole', { id: role, name: unique('shrunk'), summary: '', permissionList: ['device_list'] });
    expect(await socket.ask(Command.BaseInfo, 'TOKEN-DEV')).toMatchObject({ result: Result.Fail });
    expect((await bearer(ts, token, 'POST', '/device-ops/command', { sn: 'TOKEN-DEV', msgId: Command.BaseInfo })).code).toBe(40003);
    // A token cannot mint tokens: a leaked one must not outlive its own revocation.
    expect((await bearer(ts, token, 'POST', '/api-token/create', { name: 'child', keys: ['device_list'] })).code).toBe(40003);
  });

  it.runIf(target.available)('requests made with a token are in the operation log as the account and the token', async () => {
    const name = unique('audited');
    const { token } = await admin.ok<ApiTokenCreated>('POST', '/api-token/create', { name, keys: ['device_list'] });
    await bearer(ts, token, 'POST', '/device-ops/command', { sn: 'TOKEN-DEV', msgId: Command.Reboot });
    // The log is written after the answer has gone out: wait for the entry.
    const entry = async () =>
      (await admin.ok<{ list: OperationLogEntry[] }>('POST', '/operation-log/list', { pageNum: 1, pageSize: 20, path: '/device-ops/command' })).list.find((e) => e.tokenName === name);
    let found = await entry();
    while (!found) {
      await new Promise((r) => setTimeout(r, 20));
      found = await entry();
    }
    expect(found).toMatchObject({ account: 'admin', tokenName: name });
  });
});
