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
import { client, createAccount, createOrg, createRole, wipesWithoutApproval } from '../support/console-api.ts';
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
    // Resets and clear data run at once here (their four-eyes approval is approvals.test.ts's).
    await wipesWithoutApproval(client(ts, login.token), login.orgId);
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

  it('DOPS-2 runs a line-mode shell session on a flow: output streams to the console, cd persists, resize applies', async () => {
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

  it("DOPS-2 a terminal streams its output with offsets, re-attaches with since, and its last message on close says 'closed'", async () => {
    const flowId = newFlowId('sh');
    const heard: ShellOutput[] = [];
    const sub = consoleEngine.flow(flowId).subscribe((e) => e.result === undefined && e.msgId === Command.Shell && heard.push(e.data as ShellOutput));
    const shell = (data: unknown) => ask(Command.Shell, 'OPS-ANDROID', data, flowId);
    const screen = () => heard.map((o) => o.output).join('');
    expect(await shell({ op: 'open', raw: true, cols: 80, rows: 24 })).toMatchObject({ result: Result.Success, data: { raw: true, offset: expect.any(Number) } });
    await shell({ op: 'write', data: 'echo over the wire\r' });
    // At the start of a line: the output, not the echo of the typing.
    await expect.poll(() => /[\r\n]over the wire/.test(screen()), { timeout: 10_000 }).toBe(true);
    // Offsets count the characters before each chunk, so the chunks tile the output exactly.
    let at = heard[0]?.offset ?? 0;
    for (const o of heard) {
      expect(o.offset).toBe(at);
      at += o.output.length;
    }
    // A console that re-attaches with what it has shown gets only what it missed.
    const again = (await shell({ op: 'open', raw: true, since: at - 4 })).data as { offset: number; backlog: string };
    expect(again.offset).toBe(at);
    expect(again.backlog).toBe(screen().slice(-4));
    const before = heard.length;
    expect(await shell({ op: 'close' })).toMatchObject({ result: Result.Success });
    // Sent before the reply: by the time the close is answered the console has heard how the terminal ended.
    expect(heard.slice(before)).toEqual([{ output: '', offset: at, ended: 'closed' }]);
    expect(await shell({ op: 'write', data: 'x' })).toMatchObject({ result: Result.Fail, data: { message: expect.any(String) } });
    sub.unsubscribe();
  });

  it('DOPS-3..5 uploads, lists, downloads with a matching SHA-256, and deletes files', async () => {
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

  it('DOPS-5 refuses paths that escape the file root with result 2', async () => {
    for (const path of ['../etc', 'sdcard/../../x', '..\\..\\x']) {
      const reply = await ask(Command.FileList, 'OPS-ANDROID', { path });
      expect(reply.result).toBe(Result.MessageError);
    }
    const up = await lastFileEvent(uploadToDevice(consoleEngine, { sn: 'OPS-ANDROID', dir: 'sdcard', name: '../../evil', bytes: new Uint8Array([1]) }));
    expect(up.reply.result).toBe(Result.MessageError);
    const down = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'OPS-ANDROID', msgId: Command.FileDownload, data: { path: '../../../etc/passwd' } }));
    expect(down.reply.result).toBe(Result.MessageError);
  });

  it('DOPS-3 sends a real PNG screenshot and the tail of the device log', async () => {
    const shot = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'OPS-ANDROID', msgId: Command.Screenshot }));
    expect(shot.reply.result).toBe(Result.Success);
    expect(shot.file?.mime).toBe('image/png');
    expect(Buffer.from(shot.file?.bytes.subarray(0, 8) ?? []).toString('hex')).toBe('89504e470d0a1a0a');
    await ask(Command.PushText, 'OPS-ANDROID', { title: 'Hi', text: 'maintenance at noon' });
    const log = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'OPS-ANDROID', msgId: Command.GrabLog, data: { maxBytes: 4096 } }));
    expect(new TextDecoder().decode(log.file?.bytes)).toContain('message shown: Hi: maintenance at noon');
  });

  it('DOPS-7 performs the remaining actions, and Linux devices refuse Android-only ones', async () => {
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
  it('XFER-2 an upload whose bytes do not match the announced SHA-256 ends at once: {next: 0, error}, then result 1 with the reason', async () => {
    const flowId = newFlowId('up');
    const payload = new TextEncoder().encode('these bytes are not what the hash says');
    const acks: unknown[] = [];
    const ackSub = consoleEngine.flow(flowId).pipe(filter((e) => e.msgId === Command.ChunkAck)).subscribe((e) => acks.push(e.data));
    let isReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (isReady = resolve));
    const final = new Promise<Envelope>((resolve, reject) => {
      consoleEngine.request(Command.FileUpload, { sn: 'OPS-ANDROID', flowId, data: { path: 'sdcard', name: 'bad.bin', size: payload.length, sha256: '0'.repeat(64) } }).subscribe({
        next: (e) => {
          if (e.kind === 'result') resolve(e.reply);
          else if ((e.reply.data as { stage?: string } | undefined)?.stage === 'ready') isReady();
        },
        error: reject,
      });
    });
    // Written by hand, as an implementer without this repository's transfer code would: begin, one chunk.
    await ready;
    const begun = (await lastValueFrom(consoleEngine.request(Command.TransferBegin, { sn: 'OPS-ANDROID', flowId, data: { size: payload.length, chunkSize: 1024, window: 4, sha256: '0'.repeat(64) } }))).reply;
    expect(begun).toMatchObject({ result: Result.Success, data: { next: 0 } });
    consoleEngine.sendChunk({ flowId, seq: 0, timestamp: 0, flags: 2, payload });
    expect(await final).toMatchObject({ result: Result.Fail, data: { message: 'SHA-256 mismatch' } });
    ackSub.unsubscribe();
    expect(acks).toContainEqual({ next: 0, error: 'SHA-256 mismatch' });
    // Nothing was written, and the failed flow takes no more bytes: a new begin is refused with a reason.
    const list = (await ask(Command.FileList, 'OPS-ANDROID', { path: 'sdcard' })).data as { entries: { name: string }[] };
    expect(list.entries.map((e) => e.name)).not.toContain('bad.bin');
    const again = (await lastValueFrom(consoleEngine.request(Command.TransferBegin, { sn: 'OPS-ANDROID', flowId, data: { size: payload.length, chunkSize: 1024, window: 4, sha256: '0'.repeat(64) } }))).reply;
    expect(again).toMatchObject({ result: Result.Fail, data: { message: expect.any(String) } });
  });

  it('XFER-3 a device remembers a finished upload: a sender that begins the flow again is told done and sends nothing twice', async () => {
    const flowId = newFlowId('up');
    const bytes = new Uint8Array(10_000).map((_, i) => i & 0xff);
    const done = await lastFileEvent(uploadToDevice(consoleEngine, { sn: 'OPS-ANDROID', dir: 'sdcard', name: 'once.bin', bytes, flowId, chunkSize: 4096 }));
    expect(done.reply).toMatchObject({ result: Result.Success, data: { size: bytes.length } });
    // As a sender that missed the final acknowledgement would after its reconnect (XFER-3).
    const again = (await lastValueFrom(consoleEngine.request(Command.TransferBegin, { sn: 'OPS-ANDROID', flowId, data: { size: bytes.length, chunkSize: 4096, window: 16, sha256: sha(bytes) } }))).reply;
    expect(again).toMatchObject({ result: Result.Success, data: { next: 3, done: true } });
  });

  it('XFER-2 a download the console finds corrupt ends at once: its {next: 0, error} is answered with result 1 and the reason', async () => {
    await lastFileEvent(uploadToDevice(consoleEngine, { sn: 'OPS-ANDROID', dir: 'sdcard', name: 'good.bin', bytes: new Uint8Array(5000).fill(7) }));
    const flowId = newFlowId('dl');
    // The console's side by hand: answer the device's TransferBegin with next 0, then report a mismatch.
    const sub = consoleEngine.flow(flowId).subscribe((e) => {
      if (e.msgId === Command.TransferBegin && e.result === undefined) consoleEngine.reply(e, Result.Success, { next: 0 });
    });
    const chunk = firstValueFrom(consoleEngine.chunks$.pipe(filter((c) => c.flowId === flowId)));
    const final = lastValueFrom(consoleEngine.request(Command.FileDownload, { sn: 'OPS-ANDROID', flowId, data: { path: 'sdcard/good.bin' } }));
    await chunk;
    consoleEngine.send({ msgId: Command.ChunkAck, sn: 'OPS-ANDROID', flowId, data: { next: 0, error: 'SHA-256 mismatch' } });
    expect((await final).reply).toMatchObject({ result: Result.Fail, data: { message: 'SHA-256 mismatch' } });
    sub.unsubscribe();
  });

  it('gives every refusal (result 1 or 2) a reason in data.message', async () => {
    const refusals: [number, string, unknown, string?][] = [
      [Command.FileDelete, 'OPS-ANDROID', { paths: ['sdcard/no-such-file.txt'] }],
      [Command.FileDelete, 'OPS-ANDROID', { paths: ['sdcard/Download', '../etc'] }],
      [Command.FileDelete, 'OPS-ANDROID', { paths: [] }],
      [Command.FileDelete, 'OPS-ANDROID', { paths: [''] }],
      [Command.FileList, 'OPS-ANDROID', { path: 'no/such/folder' }],
      [Command.FileDownload, 'OPS-ANDROID', { path: 'no-such-file' }, newFlowId('dl')],
      [Command.FileUpload, 'OPS-ANDROID', { path: 'sdcard', name: 'x' }, newFlowId('up')],
      [Command.TransferBegin, 'OPS-ANDROID', { size: 10, chunkSize: 10, window: 2, sha256: '0'.repeat(64) }, newFlowId('up')],
      [Command.TransferBegin, 'OPS-ANDROID', { size: 'ten' }, newFlowId('up')],
      [Command.Shell, 'OPS-ANDROID', { op: 'write', data: 'ls\r' }, newFlowId('sh')],
      [Command.Shell, 'OPS-ANDROID', { op: 'dance' }, newFlowId('sh')],
      [Command.PushText, 'OPS-ANDROID', {}],
      [Command.Whitelist, 'OPS-ANDROID', { action: 'sing' }],
      [Command.Uninstall, 'OPS-ANDROID', { packageName: 'com.android.settings' }],
      [Command.ChangeSshConfig, 'OPS-ANDROID', { enabled: 'yes' }],
      [Command.StartStream, 'OPS-LINUX', { quality: 'giant' }],
      [Command.RemoteControl, 'OPS-ANDROID', { flowId: 'lv-none', action: 'fly' }],
      [Command.Daemon, 'OPS-LINUX', { packageName: 'x', enabled: true }],
    ];
    for (const [msgId, sn, data, flowId] of refusals) {
      const reply = await ask(msgId, sn, data, flowId);
      expect([Result.Fail, Result.MessageError], `${msgId} ${JSON.stringify(data)}`).toContain(reply.result);
      expect((reply.data as { message?: unknown } | undefined)?.message, `${msgId} ${JSON.stringify(data)}`).toEqual(expect.stringMatching(/\S/));
    }
    // A delete where nothing could be deleted is a refusal that still lists each path's reason.
    expect(await ask(Command.FileDelete, 'OPS-ANDROID', { paths: ['sdcard/no-such-file.txt'] })).toMatchObject({
      result: Result.Fail,
      data: { message: 'sdcard/no-such-file.txt: No such file: sdcard/no-such-file.txt', deleted: [], failed: [{ path: 'sdcard/no-such-file.txt' }] },
    });
    // DOPS-5: one path leaving the root refuses the whole delete (result 2) before anything is deleted.
    await lastFileEvent(uploadToDevice(consoleEngine, { sn: 'OPS-ANDROID', dir: 'sdcard', name: 'keep.txt', bytes: new Uint8Array([1]) }));
    expect((await ask(Command.FileDelete, 'OPS-ANDROID', { paths: ['sdcard/keep.txt', '../etc'] })).result).toBe(Result.MessageError);
    expect((await ask(Command.FileList, 'OPS-ANDROID', { path: 'sdcard' })).data).toMatchObject({ entries: expect.arrayContaining([expect.objectContaining({ name: 'keep.txt' })]) });
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
