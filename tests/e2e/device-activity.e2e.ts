import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { Command } from '../../protocol/index.ts';
import { requireConsoleBuild } from '../support/browser.ts';
import { consolePage } from '../support/console-page.ts';
import { startTestFleet } from '../support/fleet.ts';
import { api } from '../support/server.ts';

// Issue 5: command results go "back to the requester and to every console watching that device". An
// operator with a device open sees what others do to it while they do it.
describe('device view in Chromium: operations by others on the shown device', () => {
  requireConsoleBuild();
  const cp = consolePage();
  let fleet: Fleet;
  let sn = '';

  beforeAll(async () => {
    fleet = await startTestFleet(cp.ts, { count: 1 });
    sn = fleet.devices[0]?.sn ?? '';
  });
  afterAll(() => fleet?.stop());

  it('shows a message another caller sends to the device, with who sent it and the result', async () => {
    const token = await cp.signInAsAdmin();
    const { page } = cp;
    await page.goto(`${cp.ts.server.url}/user/device-view/index?sn=${sn}`);
    await page.getByTestId('device-online').waitFor();
    // Another caller (here the API with the admin's own session, as a script would) messages the device.
    // The page's watch is sent when its socket opens: retry until the outcome shows.
    const panel = page.getByTestId('device-activity');
    for (let i = 0; i < 20 && !(await panel.isVisible()); i++) {
      const sent = await api(cp.ts.server.url, 'POST', '/device-ops/command', { token, body: { sn, msgId: Command.PushText, data: { text: 'from a colleague' } } });
      expect(sent.code).toBe(20000);
      await panel.waitFor({ timeout: 500 }).catch(() => undefined);
    }
    await expect.poll(() => panel.textContent()).toContain('admin: Send message');
    expect(await panel.textContent()).toContain('Success');
  });
});
