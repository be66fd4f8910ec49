import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AppListReply, Command, type OtaListReply, ProtocolEngine, Result } from '../../protocol/index.ts';
import { client, wipesWithoutApproval } from '../support/console-api.ts';
import { api, openAdminConsole, startTestServer, type TestServer } from '../support/server.ts';

// The real agent (`npm run agent`) as a child process, against a real server over real sockets: the
// device commands beyond shell and files, push of a file it downloads itself, and its telemetry.

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const LINUX_CANNOT = 'Linux devices cannot do this';

/** A counter of the server's /metrics (Prometheus text), 0 when it has no such series yet. */
async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
const ABSORBED = 'dcc_telemetry_absorbed_total';
const RUNTIME_UPLOADS = 'dcc_messages_in_total{command="RuntimeInfo"}';

describe('device agent: commands, pushes and telemetry on this Linux machine', () => {
  let ts: TestServer;
  let agent: ChildProcess | undefined;
  let consoleEngine: ProtocolEngine;
  let token: string;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-ops-'));
  const sn = `AGENTOPS-${process.pid}`;
  const uninstalled = path.join(stateDir, 'uninstalled.txt');
  const sshSeen = path.join(stateDir, 'ssh.txt');
  const resetSeen = path.join(stateDir, 'reset.txt');
  let output = '';
  const ask = async (msgId: number, data?: unknown) => (await lastValueFrom(consoleEngine.request(msgId, { sn, data }))).reply;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const opened = await openAdminConsole(ts.server);
    token = opened.login.token;
    // The factory reset runs at once here (its four-eyes approval is approvals.test.ts's).
    await wipesWithoutApproval(client(ts, token), opened.login.orgId);
    consoleEngine = opened.engine;
    agent = spawn(process.execPath, [path.resolve('agent/agent-cli.ts')], {
      env: {
        ...process.env,
        AGENT_GATEWAY_URL: ts.server.deviceSocketUrl,
        AGENT_SN: sn,
        AGENT_ENROLL_KEY: ts.server.seeded.enrollKey,
        AGENT_STATE_FILE: path.join(stateDir, 'state.json'),
        AGENT_STATUS_EVERY_S: '1',
        AGENT_LOCATION: '31.23,121.47,CN,Shanghai',
        // Hooks that leave a trace instead of changing this machine.
        AGENT_UNINSTALL_CMD: `printf '%s\\n' "$APP_PACKAGE" >> '${uninstalled}'; echo "removed $APP_PACKAGE"`,
        AGENT_SSH_CMD: `echo "$AGENT_SSH_ENABLED $AGENT_SSH_PORT" > '${sshSeen}'`,
        AGENT_RESET_CMD: `echo reset > '${resetSeen}'; echo "factory reset scheduled"`,
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

  it('uploads its real status at login and every period, with the configured location', async () => {
    // The ingest writes latest states about once a second.
    const row = await vi.waitFor(
      async () => {
        const r = await ts.server.db.selectFrom('device_telemetry').selectAll().where('sn', '=', sn).executeTakeFirst();
        if (!r || r.mem_total === null || r.lat === null) throw new Error('no telemetry yet');
        return r;
      },
      { timeout: 10_000, interval: 200 },
    );
    // MemTotal of /proc/meminfo, which is what Node reports too.
    expect(Number(row.mem_total)).toBe(os.totalmem());
    expect(Number(row.mem_used)).toBeGreaterThan(0);
    expect(Number(row.mem_used)).toBeLessThan(os.totalmem());
    expect(row.cpu).toBeGreaterThanOrEqual(0);
    expect(row.cpu).toBeLessThanOrEqual(100);
    expect(row).toMatchObject({ country: 'CN', region: 'Shanghai', lat: 31.23, lng: 121.47 });
    // Every second (AGENT_STATUS_EVERY_S=1) another upload arrives.
    const before = await metric(ts.server.url, ABSORBED);
    await vi.waitFor(async () => expect(await metric(ts.server.url, ABSORBED)).toBeGreaterThanOrEqual(before + 2), { timeout: 10_000, interval: 250 });
  });

  it('sends a runtime upload for a runtime query, which the platform counts as a status', async () => {
    const uploads = await metric(ts.server.url, RUNTIME_UPLOADS);
    const reply = await ask(Command.RuntimeQuery, { limit: 5 });
    expect(reply.result).toBe(Result.Success);
    await vi.waitFor(async () => expect(await metric(ts.server.url, RUNTIME_UPLOADS)).toBe(uploads + 1), { timeout: 5_000, interval: 100 });
    expect(output).not.toContain('status reading failed');
  });

  it('DOPS-7 shows a pushed text, resets through its hook, and refuses daemon as a Linux device', async () => {
    expect(await ask(Command.PushText, { title: 'Notice', text: 'Closing at 18:00' })).toMatchObject({ result: Result.Success, data: { message: 'Message shown' } });
    await vi.waitFor(() => expect(output).toContain('message: Notice: Closing at 18:00'), { timeout: 10_000 });
    expect(await ask(Command.FactoryReset)).toMatchObject({ result: Result.Success });
    expect(fs.readFileSync(resetSeen, 'utf8').trim()).toBe('reset');
    expect(await ask(Command.Daemon, { packageName: 'bash', enabled: true })).toMatchObject({ result: Result.Fail, data: { message: LINUX_CANNOT } });
  });

  it('changes its SSH configuration through the hook', async () => {
    expect(await ask(Command.ChangeSshConfig, { enabled: true, port: 2222 })).toMatchObject({ result: Result.Success, data: { enabled: true, port: 2222 } });
    expect(fs.readFileSync(sshSeen, 'utf8').trim()).toBe('1 2222');
    expect(await ask(Command.ChangeSshConfig, { enabled: false })).toMatchObject({ result: Result.Success, data: { enabled: false, port: 2222 } });
    expect(fs.readFileSync(sshSeen, 'utf8').trim()).toBe('0 2222');
    expect((await ask(Command.ChangeSshConfig, { enabled: true, port: 70_000 })).result).toBe(Result.MessageError);
  });

  it('lists its OS image, kernel and agent version as OTA packages', async () => {
    const reply = await ask(Command.OtaList);
    expect(reply.result).toBe(Result.Success);
    const ota = reply.data as OtaListReply;
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1];
    expect(ota.packages[0]).toMatchObject({ name: pretty, type: 'system', state: 'installed', version: ota.current });
    expect(ota.packages).toContainEqual({ name: 'linux-kernel', version: os.release(), type: 'kernel', state: 'installed' });
    const version = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version;
    expect(ota.packages).toContainEqual({ name: 'device-agent', version, type: 'agent', state: 'installed' });
  });

  it.runIf(fs.existsSync('/usr/bin/dpkg-query'))('lists the installed Debian packages as its apps', async () => {
    const reply = await ask(Command.AppList);
    expect(reply.result).toBe(Result.Success);
    const { apps } = reply.data as AppListReply;
    expect(apps.length).toBeGreaterThan(50);
    expect(apps.find((a) => a.packageName === 'bash')).toMatchObject({ name: 'bash', type: 'system', versionName: expect.stringMatching(/^\d/) });
    // Every entry has the payload's shape (running: a process of the package's name runs; size in bytes).
    expect(apps.every((a) => typeof a.running === 'boolean' && a.size >= 0)).toBe(true);
  });

  it('uninstalls through the hook its operator set, with the package in APP_PACKAGE, and refuses what is no package name', async () => {
    expect(await ask(Command.Uninstall, { packageName: 'cowsay' })).toMatchObject({ result: Result.Success, data: { message: 'removed cowsay' } });
    expect(fs.readFileSync(uninstalled, 'utf8')).toBe('cowsay\n');
    expect((await ask(Command.Uninstall, { packageName: "x'; touch /tmp/owned; '" })).result).toBe(Result.MessageError);
    expect((await ask(Command.Uninstall, {})).result).toBe(Result.MessageError);
    expect(fs.readFileSync(uninstalled, 'utf8')).toBe('cowsay\n');
  });

  it('downloads a pushed file from the platform with its own credentials and verifies it by hash', { timeout: 30_000 }, async () => {
    const bytes = Buffer.from('configuration for the terminals\n'.repeat(4_000));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const created = await fetch(`${ts.server.url}/upload/files`, {
      method: 'POST',
      headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0', 'Upload-Length': String(bytes.length), 'Upload-Metadata': `kind ${b64('file')},filename ${b64('terminal.conf')}` },
    });
    const location = created.headers.get('location') ?? '';
    const patched = await fetch(`${ts.server.url}${location}`, {
      method: 'PATCH',
      headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: new Uint8Array(bytes),
    });
    expect(patched.status).toBe(204);
    const added = await api<{ id: number }>(ts.server.url, 'POST', '/file/add', { token, body: { uploadId: location } });
    expect(added.code).toBe(20000);
    const started = await api<{ campaign: { id: number } }>(ts.server.url, 'POST', '/push/start', { token, body: { kind: 'file', contentId: added.data.id, sns: [sn] } });
    expect(started.code).toBe(20000);
    const target = await vi.waitFor(
      async () => {
        const t = await ts.server.db.selectFrom('push_targets').selectAll().where('campaign_id', '=', started.data.campaign.id).where('sn', '=', sn).executeTakeFirstOrThrow();
        if (t.phase !== 'done') throw new Error(`push is ${t.phase}`);
        return t;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(target.phase).toBe('done');
    // The agent kept the verified file under its hash, next to its state.
    const kept = path.join(stateDir, 'push', sha256);
    expect(fs.readFileSync(kept).equals(bytes)).toBe(true);
    expect(output).toContain(`file terminal.conf verified at ${kept}`);
  });
});
