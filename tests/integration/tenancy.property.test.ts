import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../../server/auth/sessions.ts';
import { api, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Tenancy as a property: for arbitrary organisation trees and an arbitrary caller organisation, the
 * organisation calls reach exactly the caller's subtree. Trees, the caller's account and its session are
 * written straight to the database (the API's own paths are tested elsewhere), then every call is made
 * over HTTP.
 */
describe('tenancy property', () => {
  let ts: TestServer;
  let roleId = 0;
  let run = 0;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const role = await ts.server.db.insertInto('roles').values({ name: 'org-manager', summary: '', created_by: null }).returning('id').executeTakeFirstOrThrow();
    roleId = role.id;
    await ts.server.db.insertInto('role_permissions').values([{ role_id: roleId, permission: 'org_list' }, { role_id: roleId, permission: 'home_list' }]).execute();
  });
  afterAll(async () => ts?.stop());

  // A tree as a parent index per node: node i (i >= 1) hangs under some node before it.
  const treeArb = fc.integer({ min: 2, max: 7 }).chain((n) => fc.tuple(...Array.from({ length: n - 1 }, (_, i) => fc.nat({ max: i }))));

  it('no list, detail or mutation reaches an organisation outside the caller subtree', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb, fc.nat(), async (parents, pick) => {
        const db = ts.server.db;
        const now = Date.now();
        const tag = `p${run++}`;
        const root = await db.selectFrom('organisations').select('id').where('parent_id', 'is', null).executeTakeFirstOrThrow();
        // Node 0 hangs under the platform root; node i under node parents[i-1].
        const ids: number[] = [];
        for (let i = 0; i <= parents.length; i++) {
          const parentId = i === 0 ? root.id : (ids[parents[i - 1] ?? 0] as number);
          const row = await db
            .insertInto('organisations')
            .values({ parent_id: parentId, name: `${tag}-${i}`, enroll_key: randomBytes(12).toString('hex'), created_at: now })
            .returning('id')
            .executeTakeFirstOrThrow();
          ids.push(row.id);
        }
        const callerIndex = pick % ids.length;
        const callerOrg = ids[callerIndex] as number;
        const account = await db
          .insertInto('accounts')
          .values({ org_id: callerOrg, role_id: roleId, account: `t${tag}`, nickname: '', password_hash: 'x', update_password_last_time: now, expire_time: null, created_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        const token = randomBytes(24).toString('hex');
        await db.insertInto('sessions').values({ token_hash: tokenDigest(token), account_id: account.id, created_at: now, expires_at: now + 3_600_000 }).execute();

        // The caller's subtree, computed from the generated shape.
        const inScope = new Set([callerIndex]);
        for (let i = 1; i <= parents.length; i++) if (inScope.has(parents[i - 1] ?? -1)) inScope.add(i);
        const scopeIds = new Set([...inScope].map((i) => ids[i]));

        const listed = await api<{ list: { id: number; name: string }[] }>(ts.server.url, 'POST', '/org/list', { token, body: { pageNum: 1, pageSize: 100, name: `${tag}-` } });
        expect(new Set(listed.data.list.map((o) => o.id))).toEqual(scopeIds);
        for (const [i, id] of ids.entries()) {
          const detail = await api(ts.server.url, 'GET', `/org/getOrg/${id}`, { token });
          expect(detail.code).toBe(inScope.has(i) ? 20000 : 40003);
          // Freezing is allowed strictly below the caller's own organisation, never outside its subtree.
          const freeze = await api(ts.server.url, 'POST', '/org/freeze', { token, body: { id, freezeState: 1 } });
          if (!inScope.has(i)) expect(freeze.code).toBe(40003);
          else if (i !== callerIndex) expect(freeze.code).toBe(20000);
        }
      }),
      { numRuns: 40 },
    );
  });
});

// Console sockets (live rights): imported here so this block only appends to the file.
import { filter, firstValueFrom, lastValueFrom } from 'rxjs';
import WebSocket from 'ws';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, type Envelope, ProtocolEngine, Result } from '../../protocol/index.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { loginAsAdmin } from '../support/server.ts';
import { replyDataFor } from '../support/device-replies.ts';

/**
 * The same property over the console socket: for arbitrary trees, a console of organisation X can command
 * the devices of X's subtree and no other, and its scope follows the tree. The caller's organisation and
 * those above it are written to the database before its console opens; every other organisation is created
 * through the API after it opened (which tells the open console, as PRES-1 asks). Each organisation has a
 * connected device that answers every command.
 */
describe('tenancy property over console sockets', () => {
  let ts: TestServer;
  let roleId = 0;
  let adminToken = '';
  let run = 0;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const role = await ts.server.db.insertInto('roles').values({ name: 'device-operator', summary: '', created_by: null }).returning('id').executeTakeFirstOrThrow();
    roleId = role.id;
    await ts.server.db
      .insertInto('role_permissions')
      .values(['device_list', 'device_base_info'].map((permission) => ({ role_id: roleId, permission })))
      .execute();
    adminToken = (await loginAsAdmin(ts)).token;
  });
  afterAll(async () => ts?.stop());

  const treeArb = fc.integer({ min: 2, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n - 1 }, (_, i) => fc.nat({ max: i }))));

  /** A device that answers every command with result 0. */
  const connectDevice = async (sn: string, enrollKey: string): Promise<WebSocket> => {
    const ws = new WebSocket(`${ts.server.deviceSocketUrl}?sn=${sn}&enroll=${encodeURIComponent(enrollKey)}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.on('message', (d: Buffer) => {
        const env = JSON.parse(d.toString()) as Envelope;
        if (env.msgId === Command.DeviceLogin) return resolve();
        if (env.result === undefined && env.msgId !== Command.Heartbeat) ws.send(JSON.stringify({ msgId: env.msgId, cid: env.cid, result: 0, data: replyDataFor(env.msgId) }));
      });
      ws.once('open', () => ws.send(JSON.stringify({ msgId: Command.DeviceLogin, cid: 'login', data: { model: 'raw', systemType: 'android' } })));
    });
    return ws;
  };

  it('CMD-1 a console commands exactly the devices of its subtree, organisations created after it opened included', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb, fc.nat(), async (parents, pick) => {
        const db = ts.server.db;
        const now = Date.now();
        const tag = `ws${run++}`;
        const root = await db.selectFrom('organisations').select('id').where('parent_id', 'is', null).executeTakeFirstOrThrow();
        const parentOf = (i: number) => (i === 0 ? undefined : (parents[i - 1] ?? 0));
        const callerIndex = pick % (parents.length + 1);
        // The caller's organisation and its ancestors exist before its console opens.
        const early = new Set<number>();
        for (let i: number | undefined = callerIndex; i !== undefined; i = parentOf(i)) early.add(i);
        const ids: number[] = [];
        const keys: string[] = [];
        for (let i = 0; i <= parents.length; i++) {
          if (!early.has(i)) continue;
          const parentId = i === 0 ? root.id : (ids[parentOf(i) ?? 0] as number);
          const key = randomBytes(12).toString('hex');
          const row = await db.insertInto('organisations').values({ parent_id: parentId, name: `${tag}-${i}`, enroll_key: key, created_at: now }).returning('id').executeTakeFirstOrThrow();
          ids[i] = row.id;
          keys[i] = key;
        }
        const account = await db
          .insertInto('accounts')
          .values({ org_id: ids[callerIndex] as number, role_id: roleId, account: `t${tag}`, nickname: '', password_hash: 'x', update_password_last_time: now, expire_time: null, created_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        const token = randomBytes(24).toString('hex');
        await db.insertInto('sessions').values({ token_hash: tokenDigest(token), account_id: account.id, created_at: now, expires_at: now + 3_600_000 }).execute();
        const engine = new ProtocolEngine({
          url: () => `${ts.server.url.replace('http', 'ws')}/websocket?token=${token}&accountId=${account.id}&orgId=${ids[callerIndex]}`,
          transport: wsTransport(),
          idPrefix: 'c',
        });
        const devices: WebSocket[] = [];
        try {
          engine.start();
          await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
          // The rest of the tree appears while the console is open.
          for (let i = 0; i <= parents.length; i++) {
            if (early.has(i)) continue;
            const created = await api<{ id: number; enrollKey: string }>(ts.server.url, 'POST', '/org/add', {
              token: adminToken,
              body: { parentId: ids[parentOf(i) ?? 0], name: `${tag}-${i}`, account: `${tag}o${i}`, password: clientPasswordHash('Org_pw_1'), roleId },
            });
            expect(created.code, created.message).toBe(20000);
            ids[i] = created.data.id;
            keys[i] = created.data.enrollKey;
          }
          for (let i = 0; i <= parents.length; i++) devices.push(await connectDevice(`${tag}-d${i}`, keys[i] as string));

          const inScope = new Set([callerIndex]);
          for (let i = 1; i <= parents.length; i++) if (inScope.has(parents[i - 1] ?? -1)) inScope.add(i);
          for (let i = 0; i <= parents.length; i++) {
            const { reply } = await lastValueFrom(engine.request(Command.BaseInfo, { sn: `${tag}-d${i}` }));
            if (inScope.has(i)) expect(reply.result, `device of node ${i}, caller node ${callerIndex}`).toBe(Result.Success);
            else expect(reply, `device of node ${i}, caller node ${callerIndex}`).toMatchObject({ result: Result.Fail, data: { message: 'Permission denied or Session expire' } });
          }
        } finally {
          engine.stop();
          for (const d of devices) d.close();
        }
      }),
      { numRuns: 12 },
    );
  });
});
