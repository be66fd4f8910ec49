import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filter, firstValueFrom, lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, type Envelope, OnlineState, ProtocolEngine, Result } from '../../protocol/index.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const presenceOf = (sn: string, state: number) => (e: Envelope) =>
  e.msgId === Command.DevicePresence && e.sn === sn && (e.data as { onlineState: number }).onlineState === state;

describe('device agent on this Linux machine', () => {
  let ts: TestServer;
  let agent: ChildProcess | undefined;
  let consoleEngine: ProtocolEngine;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-'));
  const sn = `AGENT-${process.pid}`;
  let output = '';

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const login = await loginAsAdmin(ts);
    consoleEngine = new ProtocolEngine({
      url: () => `${ts.server.url.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`,
      transport: wsTransport(),
    });
    consoleEngine.start();
    await firstValueFrom(consoleEngine.connection$.pipe(filter((s) => s.status === 'open')));
  });

  afterAll(async () => {
    agent?.kill('SIGTERM');
    consoleEngine?.stop();
    await ts?.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('enrols with the organisation key, reports real Linux info, and answers a simulated reboot', async () => {
    const online = firstValueFrom(consoleEngine.messages$.pipe(filter(presenceOf(sn, OnlineState.Online))));
    agent = spawn(process.execPath, [path.resolve('agent/agent-cli.ts')], {
      env: {
        ...process.env,
        AGENT_GATEWAY_URL: ts.server.deviceSocketUrl,
        AGENT_SN: sn,
        AGENT_ENROLL_KEY: ts.server.seeded.enrollKey,
        AGENT_STATE_FILE: path.join(stateDir, 'state.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The agent logs 'online' after it has kept its secret; the console may hear presence before that.
    const agentOnline = new Promise<void>((resolve) => {
      const onData = (b: Buffer) => {
        output += b.toString();
        if (output.includes('] online')) resolve();
      };
      agent?.stdout?.on('data', onData);
      agent?.stderr?.on('data', onData);
    });
    await online;
    await agentOnline;

    const row = await ts.server.db.selectFrom('devices').selectAll().where('sn', '=', sn).executeTakeFirstOrThrow();
    expect(row.system_type).toBe('linux');
    expect(row.system_version).toContain(os.release());
    expect(JSON.parse(fs.readFileSync(path.join(stateDir, 'state.json'), 'utf8'))).toMatchObject({ sn, secret: expect.any(String) });

    const base = await lastValueFrom(consoleEngine.request(Command.BaseInfo, { sn }));
    expect(base.reply).toMatchObject({ result: Result.Success, data: { systemType: 'linux', kernel: os.release(), hostname: os.hostname() } });
    expect((base.reply.data as { memory: { total: number } }).memory.total).toBe(os.totalmem());

    const offline = firstValueFrom(consoleEngine.messages$.pipe(filter(presenceOf(sn, OnlineState.Offline))));
    const back = firstValueFrom(consoleEngine.messages$.pipe(filter(presenceOf(sn, OnlineState.Online))));
    const reply = await lastValueFrom(consoleEngine.request(Command.Reboot, { sn }));
    expect(reply.reply.result).toBe(Result.Success);
    await offline;
    await back;
    expect(output).toContain('reboot requested: simulating');
  });
});
