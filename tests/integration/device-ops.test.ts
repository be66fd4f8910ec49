import { createHash } from 'node:crypto';
import { filter, firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import {
  Command,
  type Envelope,
  fileFromDevice,
  lastFileEvent,
  LINUX_CANNOT,
  LINUX_REFUSED_COMMANDS,
  MAX_DELETE,
  newFlowId,
  ProtocolEngine,
  Result,
  type RuntimeInfoReply,
  type ShellOutput,
  Subprotocol,
  systemClock,
  type SystemInfoReply,
  uploadToDevice,
} from '../../protocol/index.ts';
import { client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('device operations over real sockets against simulated devices', () => {
  let ts: TestServer;
  let consoleEngine: ProtocolEngine;
  let android: DeviceSession;
  let linux: DeviceSession;
  const url = (l: { token: string; accountId: number; orgId: number }) =>
    `${ts.server.url.replace('http', 'ws')}/websocket?token=${l.token}&accountId=${l.accountId}&orgId=${l.orgId}`;
  const device = (sn: string, systemType: 'android' | 'linux') =>
    createVirtualDevice({
      gatewayUrl: ts.server.deviceSocketUrl,
      sn,
      enrollKey: ts.server.seeded.enrollKey,
      info: { model: systemType === 'linux' ? 'L1 Gateway' : 'P10', systemType, systemVersion: systemType === 'linux' ? 'Linux 6.1.20' : 'Android 13', imageVersion: '241001.10', networkType: 2 },
      transport: wsTransport(),
      clock: systemClock,
      rebootDownMs: 500,
    });
  const ask = async (msgId: number, sn: string, data?: unknown, flowId?: string): Promise<Envelope> =>
    (await lastValueFrom(consoleEngine.request(msgId, { sn, data, flowId }))).reply;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const login = await loginAsAdmin(ts);
    // msgpack on the console side and JSON on the devices: relays must work across codecs.
    consoleEngine = new ProtocolEngine({ url: () => url(login), transport: wsTransport(), subprotocols: [Subprotocol.Msgpack] });
    consoleEngine.start();
    android = device('OPS-ANDROID', 'android');
    linux = device('OPS-LINUX', 'linux');
    android.start();
    linux.start();
    await Promise.all([android.waitLoggedIn(), linux.waitLoggedIn(), firstValueFrom(consoleEngine.connection$.pipe(filter((s) => s.status === 'open')))]);
  });

  afterAll(async () => {
    android?.dispose();
    linux?.dispose();
    consoleEngine?.stop();
    await ts?.stop();
  });

  it('answers base, system and runtime info with processes in the spec states', async () => {
    const base = await ask(Command.BaseInfo, 'OPS-ANDROID');
    expect(base).toMatchObject({ result: Result.Success, data: { model: 'P10', systemType: 'android', memory: { total: expect.any(Number) } } });
    const sys = (await ask(Command.SystemInfo, 'OPS-ANDROID')).data as SystemInfoReply;
    expect(sys.cpuCores).toBeGreaterThan(0);
    expect(sys.wlanMac).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    expect(Object.keys(sys.support)).toContain('screenCapture');
    const a = (await ask(Command.RuntimeQuery, 'OPS-ANDROID', { limit: 5 })).data as RuntimeInfoReply;
    const b = (await ask(Command.RuntimeQuery, 'OPS-ANDROID')).data as RuntimeInfoReply;
    expect(a.processes).toHaveLength(5);
    for (const p of b.processes) expect(['S', 'R', 'D', 'I', 'T', 'Z', 'X']).toContain(p.state);
    expect(a.cpu).toBeGreaterThan(0);
    expect(b.cpu).not.toBe(a.cpu);
  });

  it('runs a shell session on a flow: output streams to the console, cd persists, resize applies', async () => {
    const flowId = newFlowId('sh');
    const opened = await ask(Command.Shell, 'OPS-ANDROID', { op: 'open', cols: 100, rows: 30 }, flowId);
    expect(opened).toMatchObject({ result: Result.Success, data: { cwd: '/', user: 'shell' } });
    const output = (line: string) => {
      const out = consoleEngine.flow(flowId).pipe(filter((e) => e.msgId === Command.Shell));
      const collected: string[] = [];
      const sub = out.subscribe((e) => collected.push((e.data as ShellOutput).output));
      return ask(Command.Shell, 'OPS-ANDROID', { op: 'input', line }, flowId).then((reply) => {
        sub.unsubscribe();
        return { reply, text: collected.join('') };
      });
    };
    expect((await output('echo hello from the device')).text).toBe('hello from the device\n');
    expect((await output('cd sdcard')).reply.data).toMatchObject({ exitCode: 0, cwd: '/sdcard' });
    expect((await output('pwd')).text).toBe('/sdcard\n');
    expect((await output('ls')).text).toContain('Download/');
    await ask(Command.Shell, 'OPS-ANDROID', { op: 'resize', cols: 120, rows: 40 }, flowId);
    expect((await output('stty size')).text).toBe('40 120\n'); // rows then columns, as stty prints them
    expect((await output('nosuchcmd')).reply.data).toMatchObject({ exitCode: 127 });
    expect(await ask(Command.Shell, 'OPS-ANDROID', { op: 'input', line: '   ' }, flowId)).toMatchObject({ result: Result.MessageError });
  });

  it('uploads, lists, downloads with a matching SHA-256, and deletes files', async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7 + (i >> 9)) & 0xff);
    const events = await lastValueFrom(uploadToDevice(consoleEngine, { sn: 'OPS-ANDROID', dir: 'sdcard/Download', name: 'blob.bin', bytes }).pipe(toArray()));
    const done = events.at(-1);
    expect(done).toMatchObject({ kind: 'done', reply: { result: Result.Success, data: { path: 'sdcard/Download/blob.bin', size: bytes.length, sha256: sha(bytes) } } });
    expect(events.filter((e) => e.kind === 'progress').length).toBeGreaterThan(1);

    const list = await ask(Command.FileList, 'OPS-ANDROID', { path: 'sdcard/Download' });
    expect((list.data as { entries: { name: string; size: number }[] }).entries).toContainEqual(expect.objectContaining({ name: 'blob.bin', size: bytes.length, type: 'file' }));

    const down = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'OPS-ANDROID', msgId: Command.FileDownload, data: { path: 'sdcard/Download/blob.bin' } }));
    expect(down.reply.result).toBe(Result.Success);
    expect(down.file?.sha256).toBe(sha(bytes));
    expect(Buffer.from(down.file?.bytes ?? []).equals(Buffer.from(bytes))).toBe(true);

    const folder = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'OPS-ANDROID', msgId: Command.FileDownload, data: { path: 'sdcard' } }));
    expect(folder.reply).toMatchObject({ result: Result.Fail, data: { message: 'Unable To Download Folders!' } });

    const tooMany = await ask(Command.FileDelete, 'OPS-ANDROID', { paths: Array.from({ length: MAX_DELETE + 1 }, (_, i) => `f${i}`) });
    expect(tooMany.result).toBe(Result.MessageError);
    const del = await ask(Command.FileDelete, 'OPS-ANDROID', { paths: ['sdcard/Download/blob.bin', 'sdcard/none.txt'] });
    expect(del).toMatchObject({ result: Result.Success, data: { deleted: ['sdcard/Download/blob.bin'], failed: [expect.objectContaining({ path: 'sdcard/none.txt' })] } });
  });

  it('refuses paths that escape the file root', async () => {
    for (const path of ['../etc', 'sdcard/../../x', '..\\..\\x']) {
      const reply = await ask(Command.FileList, 'OPS-ANDROID', { path });
      expect(reply.result).toBe(Result.MessageError);
    }
    const up = await lastFileEvent(uploadToDevice(consoleEngine, { sn: 'OPS-ANDROID', dir: 'sdcard', name: '../../evil', bytes: new Uint8Array([1]) }));
    expect(up.reply.result).toBe(Result.MessageError);
    const down = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'OPS-ANDROID', msgId: Command.FileDownload, data: { path: '../../../etc/passwd' } }));
    expect(down.reply.result).toBe(Result.MessageError);
  });

  it('sends a real PNG screenshot and the tail of the device log', async () => {
    const shot = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'OPS-ANDROID', msgId: Command.Screenshot }));
    expect(shot.reply.result).toBe(Result.Success);
    expect(shot.file?.mime).toBe('image/png');
    expect(Buffer.from(shot.file?.bytes.subarray(0, 8) ?? []).toString('hex')).toBe('89504e470d0a1a0a');
    await ask(Command.PushText, 'OPS-ANDROID', { title: 'Hi', text: 'maintenance at noon' });
    const log = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'OPS-ANDROID', msgId: Command.GrabLog, data: { maxBytes: 4096 } }));
    expect(new TextDecoder().decode(log.file?.bytes)).toContain('message shown: Hi: maintenance at noon');
  });

  it('performs the remaining actions, and Linux devices refuse Android-only ones', async () => {
    expect(await ask(Command.Whitelist, 'OPS-ANDROID', { action: 'set', packages: ['com.pos.payment', 'com.mdm.kiosk'] })).toMatchObject({ result: 0, data: { packages: ['com.pos.payment', 'com.mdm.kiosk'] } });
    expect(await ask(Command.Whitelist, 'OPS-ANDROID', { action: 'cancel', packages: ['com.mdm.kiosk'] })).toMatchObject({ data: { packages: ['com.pos.payment'] } });
    expect(await ask(Command.ChangeSshConfig, 'OPS-ANDROID', { enabled: true, port: 2222 })).toMatchObject({ result: 0, data: { enabled: true, port: 2222 } });
    expect(await ask(Command.ChangeSshConfig, 'OPS-ANDROID', { enabled: true, port: 70000 })).toMatchObject({ result: Result.MessageError });
    expect((await ask(Command.OtaList, 'OPS-ANDROID')).data).toMatchObject({ current: '241001.10' });
    const apps = (await ask(Command.AppList, 'OPS-ANDROID')).data as { apps: { packageName: string }[] };
    expect(apps.apps.map((a) => a.packageName)).toContain('com.pos.scanner');
    expect(await ask(Command.Uninstall, 'OPS-ANDROID', { packageName: 'com.pos.scanner' })).toMatchObject({ result: 0 });
    expect(await ask(Command.Uninstall, 'OPS-ANDROID', { packageName: 'com.android.settings' })).toMatchObject({ result: Result.Fail });
    expect(await ask(Command.ClearCache, 'OPS-ANDROID', { packageName: 'com.pos.payment' })).toMatchObject({ result: 0 });
    expect(await ask(Command.ClearData, 'OPS-ANDROID')).toMatchObject({ result: 0 });
    expect(await ask(Command.Daemon, 'OPS-ANDROID', { packageName: 'com.pos.payment', enabled: true })).toMatchObject({ result: 0 });
    expect(await ask(Command.FactoryReset, 'OPS-ANDROID')).toMatchObject({ result: 0 });
    // The one list of what Linux devices cannot do (protocol/catalogue/commands.ts); a Linux terminal resets.
    for (const msgId of [Command.Whitelist, Command.Daemon, Command.Uninstall, Command.ClearData, Command.ClearCache]) {
      expect(LINUX_REFUSED_COMMANDS.has(msgId)).toBe(true);
      expect(await ask(msgId, 'OPS-LINUX', { action: 'get', packageName: 'x' })).toMatchObject({ result: Result.Fail, data: { message: LINUX_CANNOT } });
    }
    expect(await ask(Command.FactoryReset, 'OPS-LINUX')).toMatchObject({ result: 0 });
    expect(await ask(Command.Reboot, 'OPS-LINUX')).toMatchObject({ result: 0 });
  });

  it('answers 5 for an offline device and refuses callers without the permission or outside the scope', async () => {
    expect(await ask(Command.SystemInfo, 'NO-SUCH-DEVICE')).toMatchObject({ result: Result.Fail });
    const admin = await loginAsAdmin(ts);
    const c = client(ts, admin.token);
    const role = await createRole(c, 'viewer', ['device_list', 'device_base_info']);
    await createAccount(c, 'viewer1', 'Viewer_pass1', role);
    const viewer = await loginAs(ts, 'viewer1', 'Viewer_pass1');
    const engine = new ProtocolEngine({ url: () => url(viewer), transport: wsTransport() });
    engine.start();
    await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
    try {
      expect((await lastValueFrom(engine.request(Command.BaseInfo, { sn: 'OPS-ANDROID' }))).reply.result).toBe(Result.Success);
      const shell = (await lastValueFrom(engine.request(Command.Shell, { sn: 'OPS-ANDROID', flowId: newFlowId('sh'), data: { op: 'open' } }))).reply;
      expect(shell).toMatchObject({ result: Result.Fail, data: { message: 'Permission denied or Session expire' } });
    } finally {
      engine.stop();
    }
    // An account of a sub-organisation holds the permission but not the device's organisation.
    await createOrg(c, { name: 'Branch', account: 'branch1', password: 'Branch_pass1', parentId: admin.orgId, roleId: role });
    const branch = await loginAs(ts, 'branch1', 'Branch_pass1');
    const outside = new ProtocolEngine({ url: () => url(branch), transport: wsTransport() });
    outside.start();
    await firstValueFrom(outside.connection$.pipe(filter((s) => s.status === 'open')));
    try {
      const refused = (await lastValueFrom(outside.request(Command.BaseInfo, { sn: 'OPS-ANDROID' }))).reply;
      expect(refused).toMatchObject({ result: Result.Fail, data: { message: 'Permission denied or Session expire' } });
    } finally {
      outside.stop();
    }
    // The previous test rebooted it: going offline is only seen once it is back from that.
    await linux.waitLoggedIn();
    const offline = firstValueFrom(consoleEngine.messages$.pipe(filter((e) => e.msgId === Command.DevicePresence && e.sn === 'OPS-LINUX' && (e.data as { onlineState: number }).onlineState === 2)));
    linux.stop();
    await offline;
    expect(await ask(Command.SystemInfo, 'OPS-LINUX')).toMatchObject({ result: Result.DeviceOffline });
    linux.start();
    await linux.waitLoggedIn();
  });
  it('exposes /metrics in the Prometheus text format: connections, commands by result, latency', async () => {
    const res = await fetch(`${ts.server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/^dcc_devices_connected 2$/m);
    expect(text).toMatch(/^dcc_consoles_connected [1-9]\d*$/m);
    expect(text).toMatch(/^dcc_commands_total\{command="SystemInfo",result="0"\} [1-9]\d*$/m);
    expect(text).toMatch(/^dcc_commands_total\{command="SystemInfo",result="5"\} 1$/m);
    expect(text).toMatch(/^dcc_command_duration_seconds_bucket\{le="\+Inf",command="RuntimeQuery"\} [1-9]\d*$/m);
    expect(text).toMatch(/^dcc_device_logins_total [1-9]\d*$/m);
    expect(text).toMatch(/^dcc_messages_in_total\{command="DeviceLogin"\} [1-9]\d*$/m);
    expect(text).toMatch(/^dcc_messages_out_total\{command="Shell"\} [1-9]\d*$/m);
    expect(text).toMatch(/^dcc_chunks_relayed_total [1-9]\d*$/m);
    expect(text).toMatch(/^dcc_send_buffer_drops_total 0$/m);
  });
  it('keeps a flow to the console that opened it: another console can neither join nor feed it', async () => {
    const login = await loginAsAdmin(ts);
    const other = new ProtocolEngine({ url: () => url(login), transport: wsTransport() });
    other.start();
    await firstValueFrom(other.connection$.pipe(filter((s) => s.status === 'open')));
    try {
      const flowId = newFlowId('sh');
      expect(await ask(Command.Shell, 'OPS-ANDROID', { op: 'open' }, flowId)).toMatchObject({ result: Result.Success });
      const stolen = (await lastValueFrom(other.request(Command.Shell, { sn: 'OPS-ANDROID', flowId, data: { op: 'input', line: 'echo hijack' } }))).reply;
      expect(stolen).toMatchObject({ result: Result.Fail, data: { message: 'flowId is in use' } });
      // A transfer offer on someone else's flow is refused by the gateway, not passed to the device.
      const begin = (await lastValueFrom(other.request(Command.TransferBegin, { sn: 'OPS-ANDROID', flowId, data: { size: 1, chunkSize: 1, window: 1, sha256: 'x' } }))).reply;
      expect(begin).toMatchObject({ result: Result.Fail, data: { message: 'Permission denied or Session expire' } });
      // The other console hears nothing of the owner's session.
      const heard: Envelope[] = [];
      const sub = other.flow(flowId).subscribe((e) => heard.push(e));
      expect(await ask(Command.Shell, 'OPS-ANDROID', { op: 'input', line: 'echo mine' }, flowId)).toMatchObject({ result: Result.Success });
      sub.unsubscribe();
      expect(heard).toEqual([]);
    } finally {
      other.stop();
    }
  });
});
