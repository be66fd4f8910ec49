import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filter, firstValueFrom, lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wsTransport } from '../../agent/ws-transport.ts';
import {
  Command,
  type Envelope,
  fileFromDevice,
  lastFileEvent,
  newFlowId,
  OnlineState,
  ProtocolEngine,
  Result,
  type RuntimeInfoReply,
  type ShellOutput,
  SUPPORT_FLAGS,
  type SystemInfoReply,
  uploadToDevice,
  type ShellRequest,
} from '../../protocol/index.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const presenceOf = (sn: string, state: number) => (e: Envelope) =>
  e.msgId === Command.DevicePresence && e.sn === sn && (e.data as { onlineState: number }).onlineState === state;

describe('device agent on this Linux machine', () => {
  let ts: TestServer;
  let agent: ChildProcess | undefined;
  let consoleEngine: ProtocolEngine;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-'));
  const sn = `AGENT-${process.pid}`;
  const fileRoot = path.join(stateDir, 'files');
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
    agent = spawn(process.execPath, [path.resolve('agent/agent-cli.ts'), '--allow-shell'], {
      env: {
        ...process.env,
        AGENT_FILE_ROOT: fileRoot,
        AGENT_SHELL_TIMEOUT_MS: '2000', // idle limit of a session, and the cap of one line-mode command
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
  it('DOPS-2..5 controls this machine: /proc runtime, a shell in its working directory, files inside the root', async () => {
    const runtime = (await lastValueFrom(consoleEngine.request(Command.RuntimeQuery, { sn, data: { limit: 1000 } }))).reply;
    expect(runtime.result).toBe(Result.Success);
    const rt = runtime.data as RuntimeInfoReply;
    // The agent's own process is in the table, with a state letter of the spec.
    const self = rt.processes.find((p) => p.pid === agent?.pid);
    expect(self).toBeDefined();
    expect(['S', 'R', 'D', 'I', 'T', 'Z', 'X']).toContain(self?.state);
    expect(rt.memory.total).toBe(os.totalmem());
    const sys = (await lastValueFrom(consoleEngine.request(Command.SystemInfo, { sn }))).reply.data as SystemInfoReply;
    expect(sys).toMatchObject({ kernel: os.release(), cpuCores: os.cpus().length, systemType: 'linux' });
    // What the system-info tab shows is what the device list filters on: the login data carried it.
    const listed = await ts.server.db.selectFrom('devices').selectAll().where('sn', '=', sn).executeTakeFirstOrThrow();
    expect(listed).toMatchObject({ manufacturer: sys.manufacturer, wlan_mac: sys.wlanMac, support_flags: SUPPORT_FLAGS.filter((f) => sys.support[f]).join(',') });

    const flowId = newFlowId('sh');
    const open = (await lastValueFrom(consoleEngine.request(Command.Shell, { sn, flowId, data: { op: 'open' } }))).reply;
    expect(open).toMatchObject({ result: Result.Success, data: { cwd: fs.realpathSync(fileRoot), user: os.userInfo().username } });
    const run = async (line: string) => {
      const chunks: string[] = [];
      const sub = consoleEngine.flow(flowId).subscribe((e) => chunks.push((e.data as ShellOutput).output));
      const reply = (await lastValueFrom(consoleEngine.request(Command.Shell, { sn, flowId, data: { op: 'input', line } }))).reply;
      sub.unsubscribe();
      return { reply, text: chunks.join('') };
    };
    expect((await run('echo $$ > pid.txt; pwd')).text.trim()).toBe(fs.realpathSync(fileRoot));
    // The shell's process really ran on this machine.
    expect(Number(fs.readFileSync(path.join(fileRoot, 'pid.txt'), 'utf8'))).toBeGreaterThan(1);
    const slow = await run('sleep 5; echo never');
    expect(slow.reply.data).toMatchObject({ exitCode: 124 });
    expect(slow.text).toContain('timed out');

    // The console's terminal: one shell on a pseudo-terminal, keystrokes sent as typed, state kept between lines.
    const term = newFlowId('sh');
    let screen = '';
    const endings: unknown[] = [];
    const termSub = consoleEngine.flow(term).subscribe((e) => {
      const o = e.data as Partial<ShellOutput> | undefined;
      if (e.result === undefined && typeof o?.output === 'string') screen += o.output;
      if (o?.ended !== undefined) endings.push(o.ended);
    });
    const shell = async (data: ShellRequest) => (await lastValueFrom(consoleEngine.request(Command.Shell, { sn, flowId: term, data }))).reply;
    const shows = (re: RegExp) => expect.poll(() => re.test(screen), { timeout: 10_000 }).toBe(true);
    expect(await shell({ op: 'open', raw: true, cols: 80, rows: 24 })).toMatchObject({ result: Result.Success, data: { raw: true, offset: expect.any(Number) } });
    // $((...)) is expanded by the shell, so what matches is output, never the echo of the typing.
    await shell({ op: 'write', data: 'cd /tmp && echo A$((1+1)):$(pwd)\r' });
    await shows(/A2:\/tmp/);
    await shell({ op: 'write', data: 'echo B$((2+2)):$(pwd)\r' });
    await shows(/B4:\/tmp/);
    expect(await shell({ op: 'resize', cols: 101, rows: 33 })).toMatchObject({ result: Result.Success });
    await shell({ op: 'write', data: 'stty size\r' });
    await shows(/[\r\n]33 101\r/);
    // The terminal's last message comes before the reply to close, and says it was closed (DOPS-2).
    expect(await shell({ op: 'close' })).toMatchObject({ result: Result.Success });
    expect(endings).toEqual(['closed']);
    expect(await shell({ op: 'write', data: 'x' })).toMatchObject({ result: Result.Fail, data: { message: expect.any(String) } });
    termSub.unsubscribe();

    expect((await run('mkdir incoming')).reply.data).toMatchObject({ exitCode: 0 });
    const bytes = new Uint8Array(200_000).map((_, i) => (i * 13) & 0xff);
    const up = await lastFileEvent(uploadToDevice(consoleEngine, { sn, dir: 'incoming', name: 'a.bin', bytes }));
    expect(up.reply.result).toBe(Result.Success);
    expect(fs.readFileSync(path.join(fileRoot, 'incoming', 'a.bin')).equals(Buffer.from(bytes))).toBe(true);
    const down = await lastFileEvent(fileFromDevice(consoleEngine, { sn, msgId: Command.FileDownload, data: { path: 'incoming/a.bin' } }));
    expect(Buffer.from(down.file?.bytes ?? []).equals(Buffer.from(bytes))).toBe(true);
    fs.symlinkSync('/etc', path.join(fileRoot, 'escape'));
    for (const p of ['../', 'escape', 'escape/passwd', 'incoming/../../state.json']) {
      expect((await lastValueFrom(consoleEngine.request(Command.FileList, { sn, data: { path: p } }))).reply.result, p).toBe(Result.MessageError);
    }
    const del = (await lastValueFrom(consoleEngine.request(Command.FileDelete, { sn, data: { paths: ['incoming/a.bin'] } }))).reply;
    expect(del.result).toBe(Result.Success);
    expect(fs.existsSync(path.join(fileRoot, 'incoming', 'a.bin'))).toBe(false);

    const shot = (await lastValueFrom(consoleEngine.request(Command.Screenshot, { sn, flowId: newFlowId('ss') }))).reply;
    expect(shot).toMatchObject({ result: Result.Fail, data: { message: expect.stringContaining('cannot take screenshots') } });
    const log = await lastFileEvent(fileFromDevice(consoleEngine, { sn, msgId: Command.GrabLog }));
    expect(new TextDecoder().decode(log.file?.bytes)).toContain('reboot requested: simulating');
    expect((await lastValueFrom(consoleEngine.request(Command.Whitelist, { sn, data: { action: 'get' } }))).reply).toMatchObject({
      result: Result.Fail,
      data: { message: 'Linux devices cannot do this' },
    });
  });

  it('refuses at once (result 2) an upload whose name holds a NUL byte, before any byte travels', async () => {
    // Asked on its own flow without the transfer helper: the device must answer the request itself, with
    // no `ready` first. Before the fix it said `ready` and waited for bytes that a console never sends
    // for a name it cannot write, so the console only ever saw the command time out.
    const stages: unknown[] = [];
    const flowId = newFlowId('up');
    const sub = consoleEngine.flow(flowId).subscribe((e) => stages.push((e.data as { stage?: unknown } | undefined)?.stage));
    const reply = (await lastValueFrom(consoleEngine.request(Command.FileUpload, { sn, flowId, data: { path: '', name: 'a\0b.txt', size: 3 } }))).reply;
    sub.unsubscribe();
    expect(reply).toMatchObject({ result: Result.MessageError, data: { message: 'Path may not contain a NUL byte: a\\0b.txt' } });
    expect(stages).not.toContain('ready');
    expect(fs.readdirSync(fileRoot).some((n) => n.startsWith('a'))).toBe(false);
  });

  it('gives every refusal (result 1 or 2) a reason in data.message, with no path of this machine in it', async () => {
    const ask = async (msgId: number, data: unknown, flowId?: string) => (await lastValueFrom(consoleEngine.request(msgId, { sn, data, flowId }))).reply;
    const refusals: [number, unknown, string?][] = [
      [Command.FileDelete, { paths: ['incoming/no-such-file'] }],
      [Command.FileDelete, { paths: ['escape'] }],
      [Command.FileDelete, { paths: ['/'] }],
      [Command.FileList, { path: 'no/such/folder' }],
      [Command.FileDownload, { path: 'incoming' }, newFlowId('dl')],
      [Command.FileUpload, { path: 'no-such-folder', name: 'x', size: 1 }, newFlowId('up')],
      [Command.TransferBegin, { size: 10, chunkSize: 10, window: 2, sha256: '0'.repeat(64) }, newFlowId('up')],
      [Command.Shell, { op: 'input', line: 'ls' }, newFlowId('sh')],
      [Command.Screenshot, {}, newFlowId('ss')],
      [Command.StartStream, { quality: 'main' }, newFlowId('lv')],
      [Command.Daemon, { packageName: 'bash', enabled: true }],
      [Command.ChangeSshConfig, { enabled: true, port: 0 }],
    ];
    for (const [msgId, data, flowId] of refusals) {
      const reply = await ask(msgId, data, flowId);
      const what = `${msgId} ${JSON.stringify(data)}`;
      expect([Result.Fail, Result.MessageError], what).toContain(reply.result);
      const message = (reply.data as { message?: unknown } | undefined)?.message;
      expect(message, what).toEqual(expect.stringMatching(/\S/));
      expect(message, what).not.toContain(fileRoot);
    }
    expect(await ask(Command.FileDelete, { paths: ['incoming/no-such-file'] })).toMatchObject({
      result: Result.Fail,
      data: { message: 'incoming/no-such-file: No such file: incoming/no-such-file', deleted: [], failed: [{ path: 'incoming/no-such-file' }] },
    });
  });
});
