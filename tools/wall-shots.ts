/**
 * Screenshots of the monitor centre's wall and of group control (issue 22) for a person to look at:
 * `SIM_DEVICES=n node tools/wall-shots.ts <out dir>` starts a throwaway server with n simulated devices,
 * signs in as admin and, at 1366x768 and 1600x900 in en and zh, shoots the wall once thumbnails arrived,
 * then selects the shown online tiles, enters group control, taps the picture and shoots the results.
 * Waits on test ids, not networkidle (the wall's screenshots keep the socket busy).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_FLEET, Fleet } from '../agent/simulator/fleet.ts';
import { wsTransport } from '../agent/ws-transport.ts';
import { systemClock } from '../protocol/index.ts';
import { launchChromium, requireConsoleBuild } from '../tests/support/browser.ts';
import { loginAsAdmin, startTestServer } from '../tests/support/server.ts';

const [outDir] = process.argv.slice(2);
if (!outDir) {
  process.stderr.write('usage: SIM_DEVICES=n node tools/wall-shots.ts <out dir>\n');
  process.exit(2);
}
requireConsoleBuild();
fs.mkdirSync(outDir, { recursive: true });
const simulated = Number(process.env.SIM_DEVICES ?? 12);
const ts = await startTestServer('sqlite', { SIM_DEVICES: '0' });
const fleet = new Fleet({
  ...DEFAULT_FLEET,
  gatewayUrl: ts.server.deviceSocketUrl,
  enrollKey: ts.server.seeded.enrollKey,
  count: simulated,
  churnEveryMs: 0,
  transport: wsTransport(),
  clock: systemClock,
  secrets: { load: () => ({}), save: () => {} },
});
fleet.start();
await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
// A few offline tiles, so the state colours show.
for (const d of fleet.devices.slice(-2)) d.stop();
const browser = await launchChromium();
try {
  const { token } = await loginAsAdmin(ts);
  for (const lang of ['en', 'zh'] as const) {
    for (const [width, height] of [[1366, 768], [1600, 900]] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      await context.addCookies([
        { name: 'Admin-Token', value: token, url: ts.server.url },
        { name: 'language', value: lang, url: ts.server.url },
      ]);
      const page = await context.newPage();
      await page.goto(`${ts.server.url}/user/monitor-center/index`);
      await page.getByTestId('monitor-wall').waitFor();
      // Every visible online tile's first thumbnail (the last tiles of a tall wall may be below the fold).
      await page.getByTestId('tile-picture').nth(Math.min(7, simulated - 3)).waitFor({ timeout: 30_000 });
      const shot = async (name: string) => {
        const file = path.join(outDir, `${name}-${lang}-${width}.png`);
        await page.screenshot({ path: file });
        process.stdout.write(`${file}\n`);
      };
      await shot('wall');
      await page.getByTestId('wall-select').click();
      await page.getByTestId('wall-select-shown').click();
      // And one offline device, so the results show a per-device refusal beside the others.
      await page.getByTestId('monitor-wall').locator('[data-state="offline"]').first().click();
      await page.getByTestId('wall-start-group').click();
      await page.getByTestId('group-panel').waitFor();
      await page.locator('[data-testid="group-pad"]').waitFor();
      const pad = page.getByTestId('group-pad');
      const box = await pad.boundingBox();
      if (box) await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.6);
      await page.getByTestId('group-summary').waitFor();
      await shot('group');
      // The rest of the panel: each device's result.
      await page.getByTestId('group-results').scrollIntoViewIfNeeded();
      await shot('group-results');
      await context.close();
    }
  }
} finally {
  await browser.close();
  fleet.stop();
  await ts.stop();
}
