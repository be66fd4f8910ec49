// Shell sessions recorded as asciicast v2 (issue 22 part 2), with the real Linux agent: the recording
// replays byte for byte what the console received, and the timeline's entry of the open links it.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../protocol/api/devices.ts';
import type { RecordingView, TimelineEntry } from '../../protocol/api/timeline.ts';
import { Command, newFlowId, type ProtocolEngine, Result, type ShellOutput, type ShellRequest } from '../../protocol/index.ts';
import { castEvents } from '../../server/recordings/asciicast.ts';
import { client, type Client, createOrg } from '../support/console-api.ts';
import { loginAs, openAdminConsole, startTestServer, type TestServer } from '../support/server.ts';

describe('shell recordings with the real agent', () => {
  let ts: TestServer;
  let agent: ChildProcess | undefined;
  let consoleEngine: ProtocolEngine;
  let admin: Client;
  let token = '';
  let orgId = 0;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-rec-'));
  const sn = `AGENTREC-${process.pid}`;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const opened = await openAdminConsole(ts.server);
    consoleEngine = opened.engine;
    token = opened.login.token;
    orgId = opened.login.orgId;
    admin = client(ts, token);
    let output = '';
    agent = spawn(process.execPath, [path.resolve('agent/agent-cli.ts'), '--allow-shell'], {
      env: {
        ...process.env,
        AGENT_FILE_ROOT: stateDir,
        AGENT_GATEWAY_URL: ts.server.deviceSocketUrl,
        AGENT_SN: sn,
        AGENT_ENROLL_KEY: ts.server.seeded.enrollKey,
        AGENT_STATE_FILE: path.join(stateDir, 'state.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      const onData = (b: Buffer) => {
        output += b.toString();
        if (output.includes('] online')) resolve();
      };
      agent?.stdout?.on('data', onData);
      agent?.stderr?.on('data', onData);
      agent?.once('exit', (code) => reject(new Error(`agent exited (${code ?? ''}): ${output}`)));
    });
  });

  afterAll(async () => {
    agent?.kill('SIGTERM');
    consoleEngine?.stop();
    await ts?.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  const openShell = (flowId: string) => lastValueFrom(consoleEngine.request(Command.Shell, { sn, flowId, data: { op: 'open', raw: true, cols: 80, rows: 24 } }));

  it('policy off (the default) records nothing', async () => {
    const flowId = newFlowId('sh');
    expect((await openShell(flowId)).reply.result).toBe(Result.Success);
    await lastValueFrom(consoleEngine.request(Command.Shell, { sn, flowId, data: { op: 'close' } }));
    expect((await admin.ok<Page<RecordingView>>('POST', '/recording/list', { pageNum: 1, pageSize: 10 })).total).toBe(0);
  });

  it('policy on: the .cast replays byte for byte what the console received, and the timeline links it', async () => {
    await admin.ok('POST', '/recording/policy', { orgId, policy: 'on' });
    const flowId = newFlowId('sh');
    let screen = '';
    const sub = consoleEngine.flow(flowId).subscribe((e) => {
      const o = e.data as Partial<ShellOutput> | undefined;
      if (e.result === undefined && e.msgId === Command.Shell && typeof o?.output === 'string') screen += o.output;
    });
    const shell = async (data: ShellRequest) => (await lastValueFrom(consoleEngine.request(Command.Shell, { sn, flowId, data }))).reply;
    expect((await openShell(flowId)).reply.result).toBe(Result.Success);
    await shell({ op: 'write', data: 'echo R$((20+22))é\r' });
    await expect.poll(() => /R42é/.test(screen), { timeout: 10_000 }).toBe(true);
    expect(await shell({ op: 'resize', cols: 100, rows: 30 })).toMatchObject({ result: Result.Success });
    await shell({ op: 'write', data: 'stty size\r' });
    await expect.poll(() => /[\r\n]30 100\r/.test(screen), { timeout: 10_000 }).toBe(true);
    expect(await shell({ op: 'close' })).toMatchObject({ result: Result.Success });
    sub.unsubscribe();

    const list = await admin.ok<Page<RecordingView>>('POST', '/recording/list', { sn, kind: 'shell', pageNum: 1, pageSize: 10 });
    expect(list.total).toBe(1);
    const rec = list.list[0];
    await expect.poll(async () => (await admin.ok<Page<RecordingView>>('POST', '/recording/list', { sn, pageNum: 1, pageSize: 10 })).list[0]?.endedAt, { timeout: 5_000 }).not.toBeNull();
    expect(rec).toMatchObject({ sn, account: 'admin', kind: 'shell', orgId });

    const res = await fetch(`${ts.server.url}/recording/${rec?.id ?? ''}/download`, { headers: { 'X-Token': token } });
    expect(res.status).toBe(200);
    const cast = await res.text();
    const header = JSON.parse(cast.split('\n')[0] ?? '') as { version: number; width: number; height: number; timestamp: number };
    expect(header).toMatchObject({ version: 2, width: 80, height: 24 });
    expect(castEvents(cast, 'o').join('')).toBe(screen);
    expect(castEvents(cast, 'i')).toEqual(['echo R$((20+22))é\r', 'stty size\r']);
    expect(castEvents(cast, 'r')).toEqual(['100x30']);
    const ended = (await admin.ok<Page<RecordingView>>('POST', '/recording/list', { sn, pageNum: 1, pageSize: 10 })).list[0];
    expect(ended?.bytes).toBe(Buffer.byteLength(cast));

    // The timeline's entry of the open links the recording.
    await expect
      .poll(async () => (await admin.ok<Page<TimelineEntry>>('POST', '/device/timeline', { sn, pageNum: 1, pageSize: 100 })).list.filter((e) => e.recordingId === rec?.id).length, { timeout: 5_000 })
      .toBe(1);
  });

  it('recordings past the retention period are deleted with their files; newer ones stay', async () => {
    const recordings = ts.server.gateway.recordings;
    const [first] = (await admin.ok<Page<RecordingView>>('POST', '/recording/list', { sn, pageNum: 1, pageSize: 10 })).list;
    expect(first && fs.existsSync(recordings?.fileOf(first.id) ?? '')).toBe(true);
    // The default retention is 90 days: a recording started 91 days ago goes, one of now stays.
    await ts.server.db.updateTable('recordings').set({ started_at: Date.now() - 91 * 86_400_000 }).where('id', '=', first?.id ?? '').execute();
    expect(await recordings?.sweep()).toBe(1);
    expect(fs.existsSync(recordings?.fileOf(first?.id ?? '') ?? '')).toBe(false);
    expect((await admin.ok<Page<RecordingView>>('POST', '/recording/list', { sn, pageNum: 1, pageSize: 10 })).total).toBe(0);
  });

  it('policy required: no recording, no shell; with one it opens; another organisation neither lists nor downloads it', async () => {
    await admin.ok('POST', '/recording/policy', { orgId, policy: 'required' });
    // Recording impossible (the recordings directory is a file): no recording, no shell.
    const dir = path.join(ts.config.dataDir, 'recordings');
    fs.renameSync(dir, `${dir}.away`);
    fs.writeFileSync(dir, 'not a directory');
    expect((await openShell(newFlowId('sh'))).reply.result).toBe(Result.Fail);
    fs.rmSync(dir);
    fs.renameSync(`${dir}.away`, dir);
    const flowId = newFlowId('sh');
    expect((await openShell(flowId)).reply.result).toBe(Result.Success);
    await lastValueFrom(consoleEngine.request(Command.Shell, { sn, flowId, data: { op: 'close' } }));
    const listed = await admin.ok<Page<RecordingView>>('POST', '/recording/list', { sn, pageNum: 1, pageSize: 10 });
    expect(listed.total).toBe(1);

    await createOrg(admin, { name: 'Recording other org', account: 'recother', password: 'Other_pass_1' });
    const other = await loginAs(ts, 'recother', 'Other_pass_1');
    expect((await client(ts, other.token).ok<Page<RecordingView>>('POST', '/recording/list', { pageNum: 1, pageSize: 10 })).total).toBe(0);
    const refused = await fetch(`${ts.server.url}/recording/${listed.list[0]?.id ?? ''}/download`, { headers: { 'X-Token': other.token } });
    expect(((await refused.json()) as { code: number }).code).not.toBe(20000);
  });
});
