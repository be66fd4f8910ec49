import { filter, lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { Command, newFlowId, type ProtocolEngine, Result, type ShellOutput } from '../../protocol/index.ts';
import { requireConsoleBuild } from '../support/browser.ts';
import { consolePage } from '../support/console-page.ts';
import { startTestFleet } from '../support/fleet.ts';
import { api, loginAsAdmin, openConsole } from '../support/server.ts';

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
    const shell = async (data: unknown) => (await lastValueFrom(engine.request(Command.Shell, { sn, flowId, data }))).reply;
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
    await page.getByTestId('timeline-table').screenshot({ path: '/tmp/h9-timeline-replay-link.png' });
    await replay.click();
    const player = page.getByTestId('recording-player');
    await player.locator('.ap-player').waitFor();
    // Play to the end: the session's output is drawn on the player's terminal.
    await player.locator('.ap-player').click();
    await expect.poll(() => player.innerText(), { timeout: 15_000 }).toContain('replayed on screen');
    await page.screenshot({ path: '/tmp/h9-replay-en.png', fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('recording-download').click()]);
    expect(download.suggestedFilename()).toMatch(/\.cast$/);

    await page.context().addCookies([{ name: 'language', value: 'zh', url: cp.ts.server.url }]);
    await page.reload();
    await page.getByText('会话回放').first().waitFor();
    await page.getByTestId('recording-download').getByText('下载 .cast').waitFor();
  });
});
