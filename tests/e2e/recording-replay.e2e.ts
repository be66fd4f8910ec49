import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { RecordingView } from '../../protocol/api/timeline.ts';
import { ChunkFlag, Command, newFlowId, type ProtocolEngine, Result, type ShellOutput, type ShellRequest, type StartStreamReply } from '../../protocol/index.ts';
import { requireConsoleBuild } from '../support/browser.ts';
import { consolePage } from '../support/console-page.ts';
import { startTestFleet } from '../support/fleet.ts';
import { api, loginAsAdmin, openConsole } from '../support/server.ts';
import { shots } from '../support/shots.ts';

// Issue 22: a recorded shell session is linked from the device's timeline and replays in the console.
describe('device view in Chromium: a recorded shell session replays', () => {
  requireConsoleBuild();
  const cp = consolePage();
  let fleet: Fleet;
  let engine: ProtocolEngine;
  let sn = '';

  beforeAll(async () => {
    fleet = await startTestFleet(cp.ts, { count: 1 });
    sn = fleet.devices[0]?.sn ?? '';
  });
  afterAll(() => {
    engine?.stop();
    fleet?.stop();
  });

  it('en and zh: the timeline links the recording, the player shows the session, the .cast downloads', async () => {
    const login = await loginAsAdmin(cp.ts);
    expect((await api(cp.ts.server.url, 'POST', '/recording/policy', { token: login.token, body: { orgId: login.orgId, policy: 'on' } })).code).toBe(20000);
    engine = await openConsole(cp.ts.server.url, login);
    const flowId = newFlowId('sh');
    let screen = '';
    const sub = engine.flow(flowId).pipe(filter((e) => e.result === undefined && e.msgId === Command.Shell)).subscribe((e) => (screen += (e.data as ShellOutput).output));
    const shell = async (data: ShellRequest) => (await lastValueFrom(engine.request(Command.Shell, { sn, flowId, data }))).reply;
    expect(await shell({ op: 'open', raw: true, cols: 80, rows: 24 })).toMatchObject({ result: Result.Success });
    await shell({ op: 'write', data: 'echo replayed on screen\r' });
    await expect.poll(() => /[\r\n]replayed on screen/.test(screen), { timeout: 10_000 }).toBe(true);
    await shell({ op: 'close' });
    sub.unsubscribe();

    await cp.signInAsAdmin();
    const { page } = cp;
    const replay = page.getByTestId('timeline-replay');
    await expect
      .poll(async () => {
        await page.goto(`${cp.ts.server.url}/user/device-view/index?sn=${sn}&tab=timeline`);
        await page.getByTestId('timeline-table').waitFor();
        return replay.count();
      }, { timeout: 15_000 })
      .toBe(1);
    await shots(page, 'replay-timeline-link');
    await replay.click();
    const player = page.getByTestId('recording-player');
    await player.locator('.ap-player').waitFor();
    // Play to the end: the session's output is drawn on the player's terminal.
    await player.locator('.ap-player').click();
    await expect.poll(() => player.innerText(), { timeout: 15_000 }).toContain('replayed on screen');
    await shots(page, 'replay-player');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('recording-download').click()]);
    expect(download.suggestedFilename()).toMatch(/\.cast$/);

    // Search the session's output: the match is listed and a click jumps the player to it. The first match is in
    // the typed command's echo, which may arrive a few characters at a time: the jump guarantees the match and
    // what precedes it are drawn (so 'on screen' shows 'replayed on screen'), not what follows it.
    await page.getByTestId('recording-search').fill('on screen');
    await expect.poll(() => page.getByTestId('recording-match').count()).toBeGreaterThanOrEqual(1);
    await page.getByTestId('recording-match').first().click();
    await expect.poll(() => player.innerText(), { timeout: 10_000 }).toContain('replayed on screen');
    // Who watched: the replay and the download.
    await expect.poll(() => page.getByTestId('recording-view').count()).toBeGreaterThanOrEqual(2);
    await shots(page, 'replay-shell');

    await page.context().addCookies([{ name: 'language', value: 'zh', url: cp.ts.server.url }]);
    await page.reload();
    await page.getByText('会话回放').first().waitFor();
    await page.getByTestId('recording-download').getByText('下载 .cast').waitFor();
    await page.getByTestId('recording-search').fill('replayed on');
    await page.getByText(/匹配：\d+ 处/).waitFor();
    await shots(page, 'replay-shell', 'zh');
    await page.context().addCookies([{ name: 'language', value: 'en', url: cp.ts.server.url }]);
  });

  it('a recorded live session exports an MP4 that Chromium plays (video element reaches readyState >= 2 with the right dimensions)', async () => {
    const login = await loginAsAdmin(cp.ts);
    engine ??= await openConsole(cp.ts.server.url, login);
    expect((await api(cp.ts.server.url, 'POST', '/recording/policy', { token: login.token, body: { orgId: login.orgId, policy: 'on' } })).code).toBe(20000);
    // A real stream: the simulated device's H.264 (320x240, 30 fps, a key frame every 15 pictures) through the gateway's fan-out.
    const pictures = firstValueFrom(engine.chunks$.pipe(filter((c) => (c.flags & ChunkFlag.Audio) === 0), take(45), toArray()));
    const started = (await lastValueFrom(engine.request(Command.StartStream, { sn, data: { quality: 'main' } }))).reply;
    expect(started.result).toBe(Result.Success);
    await pictures;
    const flowId = (started.data as StartStreamReply).flowId;
    await lastValueFrom(engine.request(Command.StopStream, { sn, data: { flowId } }));
    const liveList = async () => (await api<Page<RecordingView>>(cp.ts.server.url, 'POST', '/recording/list', { token: login.token, body: { sn, kind: 'live', pageNum: 1, pageSize: 10 } })).data;
    await expect.poll(async () => (await liveList()).list[0]?.endedAt ?? null, { timeout: 10_000 }).not.toBeNull();
    const id = (await liveList()).list[0]?.id ?? '';

    await cp.signInAsAdmin();
    const { page } = cp;
    await page.goto(`${cp.ts.server.url}/user/device-view/recording?id=${id}`);
    const video = page.getByTestId('recording-video');
    await video.waitFor();
    await page.waitForFunction(() => {
      const v = document.querySelector<HTMLVideoElement>('[data-testid=recording-video]');
      return v !== null && (v.readyState >= 2 || v.error !== null);
    }, undefined, { timeout: 20_000 });
    const state = await video.evaluate((v: HTMLVideoElement) => ({ readyState: v.readyState, width: v.videoWidth, height: v.videoHeight, error: v.error?.message ?? null }));
    expect(state).toMatchObject({ error: null, width: 320, height: 240 });
    expect(state.readyState).toBeGreaterThanOrEqual(2);
    await page.getByTestId('recording-download').getByText('Download .mp4').waitFor();
    await expect.poll(() => page.getByTestId('recording-view').count()).toBeGreaterThanOrEqual(1);
    await shots(page, 'replay-live');
    await page.context().addCookies([{ name: 'language', value: 'zh', url: cp.ts.server.url }]);
    await page.reload();
    await page.getByTestId('recording-download').getByText('下载 .mp4').waitFor();
    await page.getByText('谁查看过此录像').waitFor();
    await shots(page, 'replay-live', 'zh');
  });
});

describe('recordings list in Chromium', () => {
  requireConsoleBuild();
  const cp = consolePage();
  let fleet: Fleet;
  let engine: ProtocolEngine;
  let sn = '';

  beforeAll(async () => {
    fleet = await startTestFleet(cp.ts, { count: 1 });
    sn = fleet.devices[0]?.sn ?? '';
  });
  afterAll(() => {
    engine?.stop();
    fleet?.stop();
  });

  it('lists shell and live recordings with filters, links to replay, and edits the policy (en and zh)', async () => {
    const login = await loginAsAdmin(cp.ts);
    const token = login.token;
    expect((await api(cp.ts.server.url, 'POST', '/recording/policy', { token, body: { orgId: login.orgId, policy: 'on' } })).code).toBe(20000);
    engine = await openConsole(cp.ts.server.url, login);
    // One shell session and one live-view session of the simulated device.
    const flowId = newFlowId('sh');
    const shell = async (data: ShellRequest) => (await lastValueFrom(engine.request(Command.Shell, { sn, flowId, data }))).reply;
    expect(await shell({ op: 'open', raw: true, cols: 80, rows: 24 })).toMatchObject({ result: Result.Success });
    await shell({ op: 'close' });
    const pictures = firstValueFrom(engine.chunks$.pipe(filter((c) => (c.flags & ChunkFlag.KeyFrame) !== 0), take(2), toArray()));
    const started = (await lastValueFrom(engine.request(Command.StartStream, { sn, data: { quality: 'main' } }))).reply;
    await pictures;
    await lastValueFrom(engine.request(Command.StopStream, { sn, data: { flowId: (started.data as StartStreamReply).flowId } }));

    await cp.signInAsAdmin();
    const { page } = cp;
    await page.goto(`${cp.ts.server.url}/user/dashboard/index`);
    await page.locator('nav, aside').getByText('Session recordings').first().click();
    const table = page.getByTestId('recordings-table');
    const rows = table.locator('tbody tr[data-kind]');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    expect(new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-kind'))))).toEqual(new Set(['shell', 'live']));
    await shots(page, 'replay-list');

    // Filter by kind: only the live-view recording.
    await page.getByTestId('recordings-kind').click();
    await page.getByRole('option', { name: 'Live view' }).click();
    await page.getByTestId('recordings-search').click();
    await expect.poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-kind')))).toEqual(['live']);
    // Filter by another serial: nothing, and the empty text says so.
    await page.getByTestId('recordings-sn').fill('NO-SUCH-DEVICE');
    await page.getByTestId('recordings-search').click();
    await page.getByText('No recorded sessions match these filters').waitFor();
    await page.getByTestId('recordings-sn').fill(sn);
    await page.getByTestId('recordings-search').click();
    await expect.poll(() => rows.count()).toBe(1);

    // The policy: on now; set to required, saved on the server.
    const control = page.getByTestId('recording-policy-control');
    await expect.poll(() => control.locator('input:checked').getAttribute('value')).toBe('on');
    await control.getByText('Required').click();
    await expect
      .poll(async () => (await api<{ policy: string }>(cp.ts.server.url, 'POST', '/recording/policy-of', { token, body: { orgId: login.orgId } })).data.policy)
      .toBe('required');
    await control.getByText('On', { exact: true }).click();
    await expect.poll(async () => (await api<{ policy: string }>(cp.ts.server.url, 'POST', '/recording/policy-of', { token, body: { orgId: login.orgId } })).data.policy).toBe('on');

    // The replay link opens the recording.
    await table.getByTestId('recording-row-replay').first().click();
    await page.getByTestId('recording-video').waitFor();

    // The device view links to its recordings.
    await page.goto(`${cp.ts.server.url}/user/device-view/index?sn=${sn}`);
    await page.getByTestId('device-recordings').click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);

    await page.context().addCookies([{ name: 'language', value: 'zh', url: cp.ts.server.url }]);
    await page.reload();
    await page.getByText('录像策略').first().waitFor();
    await table.getByText('实时画面').first().waitFor();
    await page.locator('nav, aside').getByText('会话录像').first().waitFor();
    await shots(page, 'replay-list', 'zh');
  });
});
