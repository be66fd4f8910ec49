// Live-view sessions recorded per organisation policy (issue 22): the stream's H.264 access units and Opus
// packets as the fan-out saw them, on disk while the session runs, exported as a fragmented MP4 on download.
import fs from 'node:fs';
import path from 'node:path';
import { BufferSource, Input, MP4 } from 'mediabunny';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { RecordingDetail, RecordingView, TimelineEntry } from '../../protocol/api/timeline.ts';
import { ChunkFlag, Command, type ProtocolEngine, Result, type StartStreamReply } from '../../protocol/index.ts';
import { client, type Client, createOrg } from '../support/console-api.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { loginAs, openAdminConsole, startTestServer, type TestServer } from '../support/server.ts';

describe('live-view recordings', () => {
  let ts: TestServer;
  let engine: ProtocolEngine;
  let admin: Client;
  let token = '';
  let orgId = 0;
  const devices: DeviceSession[] = [];
  // A simulated device whose support flags include a microphone (the flags follow from the serial): its stream carries voice.
  const sn = 'LIVEREC-2';

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const opened = await openAdminConsole(ts.server);
    engine = opened.engine;
    token = opened.login.token;
    orgId = opened.login.orgId;
    admin = client(ts, token);
    await startVirtualDevices(ts, [sn], devices);
  });

  afterAll(async () => {
    engine?.stop();
    devices.forEach((d) => d.dispose());
    await ts?.stop();
  });

  const list = () => admin.ok<Page<RecordingView>>('POST', '/recording/list', { sn, kind: 'live', pageNum: 1, pageSize: 10 });
  const start = async () => (await lastValueFrom(engine.request(Command.StartStream, { sn, data: { quality: 'main', audio: true } }))).reply;
  const stop = (flowId: string) => lastValueFrom(engine.request(Command.StopStream, { sn, data: { flowId } }));

  /** Watches until `pictures` pictures (and some voice) have arrived, then stops watching. */
  async function watch(pictures: number): Promise<void> {
    const seen = firstValueFrom(engine.chunks$.pipe(filter((c) => (c.flags & ChunkFlag.Audio) === 0), take(pictures), toArray()));
    const voice = firstValueFrom(engine.chunks$.pipe(filter((c) => (c.flags & ChunkFlag.Audio) !== 0), take(5), toArray()));
    const reply = await start();
    expect(reply.result).toBe(Result.Success);
    await Promise.all([seen, voice]);
    await stop((reply.data as StartStreamReply).flowId);
  }

  it('policy off (the default) records nothing', async () => {
    await watch(5);
    expect((await list()).total).toBe(0);
  });

  it('policy on: the session is a live recording whose download is an MP4 of the stream (H.264 320x240 and Opus)', async () => {
    await admin.ok('POST', '/recording/policy', { orgId, policy: 'on' });
    // 60 pictures at 30 fps, a key frame every 15: the recording holds several groups of pictures.
    await watch(60);
    await expect.poll(async () => (await list()).list[0]?.endedAt ?? null, { timeout: 5_000 }).not.toBeNull();
    const rec = (await list()).list[0];
    expect(rec).toMatchObject({ sn, account: 'admin', kind: 'live', orgId });
    const raw = ts.server.gateway.recordings?.fileOf(rec?.id ?? '', 'live') ?? '';
    expect(rec?.bytes).toBe(fs.statSync(raw).size);

    const res = await fetch(`${ts.server.url}/recording/${rec?.id ?? ''}/download`, { headers: { 'X-Token': token } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-disposition')).toContain('.mp4');
    const mp4 = new Uint8Array(await res.arrayBuffer());
    // Fragmented: a movie box, then movie fragments.
    expect(new TextDecoder().decode(mp4.subarray(4, 8))).toBe('ftyp');
    expect(Buffer.from(mp4).includes('moof')).toBe(true);
    const input = new Input({ source: new BufferSource(mp4), formats: [MP4] });
    const video = await input.getPrimaryVideoTrack();
    expect(video).not.toBeNull();
    expect(await video?.getCodec()).toBe('avc');
    expect([await video?.getCodedWidth(), await video?.getCodedHeight()]).toEqual([320, 240]);
    const stats = await video?.computePacketStats();
    // Every picture from the first key frame the recording saw (it may start after the console's first).
    expect(stats?.packetCount ?? 0).toBeGreaterThanOrEqual(30);
    const audio = await input.getPrimaryAudioTrack();
    expect(await audio?.getCodec()).toBe('opus');
    // A second download is the same file, exported once.
    const again = new Uint8Array(await (await fetch(`${ts.server.url}/recording/${rec?.id ?? ''}/download`, { headers: { 'X-Token': token } })).arrayBuffer());
    expect(Buffer.from(again).equals(Buffer.from(mp4))).toBe(true);

    // The device's timeline holds the console's start of watching, linked to the recording.
    await expect
      .poll(async () => (await admin.ok<Page<TimelineEntry>>('POST', '/device/timeline', { sn, pageNum: 1, pageSize: 100 })).list.filter((e) => e.recordingId === rec?.id && e.msgId === Command.StartStream).length, { timeout: 5_000 })
      .toBe(1);

    // Who watched and when: each fetch is a view, a player's later range of the same file is not another.
    const replayed = await fetch(`${ts.server.url}/recording/${rec?.id ?? ''}/download?purpose=replay`, { headers: { 'X-Token': token } });
    expect(replayed.status).toBe(200);
    await replayed.arrayBuffer();
    await (await fetch(`${ts.server.url}/recording/${rec?.id ?? ''}/download?purpose=replay`, { headers: { 'X-Token': token, Range: 'bytes=100-' } })).arrayBuffer();
    const detail = await admin.ok<RecordingDetail>('POST', '/recording/detail', { id: rec?.id });
    expect(detail.recording).toEqual(rec && { ...rec, endedAt: detail.recording.endedAt });
    expect(detail.views.map((v) => [v.account, v.purpose])).toEqual([['admin', 'replay'], ['admin', 'download'], ['admin', 'download']]);

    // Another organisation neither lists nor downloads it.
    await createOrg(admin, { name: 'Live recording other org', account: 'liverecother', password: 'Other_pass_1' });
    const other = await loginAs(ts, 'liverecother', 'Other_pass_1');
    expect((await client(ts, other.token).ok<Page<RecordingView>>('POST', '/recording/list', { pageNum: 1, pageSize: 10 })).total).toBe(0);
    const refused = await fetch(`${ts.server.url}/recording/${rec?.id ?? ''}/download`, { headers: { 'X-Token': other.token } });
    expect(((await refused.json()) as { code: number }).code).not.toBe(20000);
    expect((await client(ts, other.token).call('POST', '/recording/detail', { id: rec?.id })).code).not.toBe(20000);
  });

  it('policy required: when recording is impossible the live view is refused; with one it plays', async () => {
    await admin.ok('POST', '/recording/policy', { orgId, policy: 'required' });
    const dir = path.join(ts.config.dataDir, 'recordings');
    fs.renameSync(dir, `${dir}.away`);
    fs.writeFileSync(dir, 'not a directory');
    const refused = await start();
    fs.rmSync(dir);
    fs.renameSync(`${dir}.away`, dir);
    expect(refused.result).toBe(Result.Fail);
    await expect.poll(() => ts.server.gateway.streams.streamCount, { timeout: 5_000 }).toBe(0);
    await watch(5);
    await expect.poll(async () => (await list()).total, { timeout: 5_000 }).toBe(2);
  });
});
