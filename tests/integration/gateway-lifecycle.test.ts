import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { filter, lastValueFrom, toArray, takeUntil, timer } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CloseCode, Command, type Envelope, OnlineState, ProtocolEngine, Result } from '../../protocol/index.ts';
import { api, loginAsAdmin, openAdminConsole, startTestServer, type TestServer } from '../support/server.ts';
import { replyDataFor } from '../support/device-replies.ts';

// Issue 5: revocable device secrets, results reaching every console that watches a device, and a
// graceful shutdown that lets commands in flight finish and leaves every device recorded offline.

const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code: number) => resolve(code)));

/** A raw device speaking JSON by hand; answers every command after `answerAfterMs`. */
async function rawDevice(ts: TestServer, sn: string, creds: string, answerAfterMs = 0): Promise<{ ws: WebSocket; secret: string }> {
  const ws = new WebSocket(`${ts.server.deviceSocketUrl}?sn=${sn}&${creds}`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('close', (code: number) => reject(new Error(`closed ${code}`)));
  });
  const login = new Promise<Envelope>((resolve) => ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as Envelope)));
  ws.send(JSON.stringify({ msgId: Command.DeviceLogin, cid: 'l1', data: { model: 'raw', systemType: 'android' } }));
  const reply = await login;
  expect(reply.result).toBe(Result.Success);
  ws.on('message', (d: Buffer) => {
    const env = JSON.parse(d.toString()) as Envelope;
    if (env.cid && env.msgId >= 65536) setTimeout(() => ws.send(JSON.stringify({ msgId: env.msgId, cid: env.cid, result: Result.Success, data: replyDataFor(env.msgId) })), answerAfterMs);
  });
  return { ws, secret: (reply.data as { secret?: string }).secret ?? '' };
}

const consoleOf = async (ts: TestServer): Promise<ProtocolEngine> => (await openAdminConsole(ts.server)).engine;

describe('device secrets and watching consoles', () => {
  let ts: TestServer;
  let token = '';

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    token = (await loginAsAdmin(ts)).token;
  });
  afterAll(async () => ts?.stop());

  it('DEV-3 revoking a secret disconnects the device (4001), refuses the old secret, and lets it enrol again', async () => {
    const enroll = `enroll=${ts.server.seeded.enrollKey}`;
    const { ws, secret } = await rawDevice(ts, 'REVOKE-1', enroll);
    const code = closed(ws);
    expect((await api(ts.server.url, 'POST', '/device-ops/revoke', { token, body: { sn: 'REVOKE-1' } })).code).toBe(20000);
    expect(await code).toBe(CloseCode.Unauthorized);

    const again = new WebSocket(`${ts.server.deviceSocketUrl}?sn=REVOKE-1&secret=${secret}`);
    expect(await closed(again)).toBe(CloseCode.Unauthorized);

    // Enrolling again with the organisation's key issues a new secret, which then works.
    const back = await rawDevice(ts, 'REVOKE-1', enroll);
    expect(back.secret).not.toBe('');
    expect(back.secret).not.toBe(secret);
    back.ws.close();
    await closed(back.ws);
    const withNew = await rawDevice(ts, 'REVOKE-1', `secret=${back.secret}`);
    withNew.ws.close();
  });

  it('DEV-2 DEV-3 revoking a secret also closes a socket waiting beside the logged-in one (4001), so it cannot log in with the old secret', async () => {
    const { ws, secret } = await rawDevice(ts, 'REVOKE-2', `enroll=${ts.server.seeded.enrollKey}`);
    // A second socket with the same secret waits beside the logged-in one until it logs in (DEV-2).
    const waiting = new WebSocket(`${ts.server.deviceSocketUrl}?sn=REVOKE-2&secret=${secret}`);
    await new Promise((resolve, reject) => waiting.once('open', resolve).once('error', reject));
    const beat = new Promise<Envelope>((resolve) => waiting.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as Envelope)));
    waiting.send(JSON.stringify({ msgId: Command.Heartbeat, cid: 'hb' }));
    expect((await beat).result).toBe(Result.Success);
    const codes = Promise.all([closed(ws), closed(waiting)]);
    expect((await api(ts.server.url, 'POST', '/device-ops/revoke', { token, body: { sn: 'REVOKE-2' } })).code).toBe(20000);
    expect(await codes).toEqual([CloseCode.Unauthorized, CloseCode.Unauthorized]);
  });

  it('refuses to revoke a device that does not exist, with the same answer as out of scope', async () => {
    const res = await api(ts.server.url, 'POST', '/device-ops/revoke', { token, body: { sn: 'NO-SUCH-DEVICE' } });
    expect(res.code).toBe(40003);
  });

  it('a console watching a device hears the outcome of commands others send to it, the sender does not', async () => {
    const { ws } = await rawDevice(ts, 'WATCHED-1', `enroll=${ts.server.seeded.enrollKey}`);
    const sender = await consoleOf(ts);
    const watcher = await consoleOf(ts);
    expect((await lastValueFrom(watcher.request(Command.DeviceWatch, { sn: 'WATCHED-1', data: { watch: true } }))).reply.result).toBe(Result.Success);

    const outcomes = (engine: ProtocolEngine) =>
      engine.messages$.pipe(
        filter((e) => e.msgId === Command.DeviceCommandOutcome && e.sn === 'WATCHED-1'),
        takeUntil(timer(1_500)),
        toArray(),
      );
    const heardByWatcher = lastValueFrom(outcomes(watcher));
    const heardBySender = lastValueFrom(outcomes(sender));
    const sent = await lastValueFrom(sender.request(Command.PushText, { sn: 'WATCHED-1', data: { text: 'hello' } }));
    expect(sent.reply.result).toBe(Result.Success);
    // Over HTTP too: the outcome names the account that sent it.
    expect((await api(ts.server.url, 'POST', '/device-ops/command', { token, body: { sn: 'WATCHED-1', msgId: Command.PushText, data: { text: 'again' } } })).code).toBe(20000);

    const watched = await heardByWatcher;
    expect(watched.map((e) => e.data)).toEqual([
      { msgId: Command.PushText, result: Result.Success, by: 'admin', time: expect.any(Number) },
      { msgId: Command.PushText, result: Result.Success, by: 'admin', time: expect.any(Number) },
    ]);
    // The sender is not watching: it has its own reply and nothing else.
    expect(await heardBySender).toEqual([]);

    // Stopping the watch stops the outcomes.
    expect((await lastValueFrom(watcher.request(Command.DeviceWatch, { sn: 'WATCHED-1', data: { watch: false } }))).reply.result).toBe(Result.Success);
    const afterStop = lastValueFrom(outcomes(watcher));
    await lastValueFrom(sender.request(Command.PushText, { sn: 'WATCHED-1', data: { text: 'unheard' } }));
    expect(await afterStop).toEqual([]);
    sender.stop();
    watcher.stop();
    ws.close();
  });

  it('refuses to watch a device that does not exist', async () => {
    const engine = await consoleOf(ts);
    const reply = (await lastValueFrom(engine.request(Command.DeviceWatch, { sn: 'NOBODY', data: { watch: true } }))).reply;
    expect(reply.result).toBe(Result.Fail);
    engine.stop();
  });
});

describe('graceful shutdown', () => {
  it('PRES-2 a node shutting down lets a command in flight finish, closes sockets with 1001 and records every device offline', async () => {
    const ts = await startTestServer('sqlite');
    const dbFile = path.join(ts.config.dataDir, 'control-center.sqlite');
    try {
      const slow = await rawDevice(ts, 'DRAIN-1', `enroll=${ts.server.seeded.enrollKey}`, 300);
      const other = await rawDevice(ts, 'DRAIN-2', `enroll=${ts.server.seeded.enrollKey}`);
      const codes = Promise.all([closed(slow.ws), closed(other.ws)]);
      const inFlight = ts.server.gateway.command('DRAIN-1', Command.PushText, { text: 'finish me' });
      // Shutdown starts while the device is still working on the command.
      await new Promise((r) => setTimeout(r, 50));
      const closing = ts.server.close();
      expect((await inFlight).result).toBe(Result.Success);
      await closing;
      expect(await codes).toEqual([CloseCode.GoingAway, CloseCode.GoingAway]);
      const db = new DatabaseSync(dbFile, { readOnly: true });
      const rows = db.prepare('select sn, online_state, node_id from devices order by sn').all() as { sn: string; online_state: number; node_id: string | null }[];
      db.close();
      expect(rows).toEqual([
        { sn: 'DRAIN-1', online_state: OnlineState.Offline, node_id: null },
        { sn: 'DRAIN-2', online_state: OnlineState.Offline, node_id: null },
      ]);
    } finally {
      await ts.stop().catch(() => undefined);
    }
  });
});
