/**
 * Screenshots of console pages for a person to look at: `node tools/screenshots.ts <out dir> <path>...`
 * starts a throwaway server (SQLite; with SIM_DEVICES=n, a simulated fleet of n devices in this process,
 * awaited online before the first shot), signs in as admin and shoots
 * each path at 1366x768 and 1600x900, in en and zh. Serves CONSOLE_DIR (default dist/): build it first.
 * A path may end with `#click=<test id>` to click an element before the shot (a dialog, say).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_FLEET, Fleet } from '../agent/simulator/fleet.ts';
import { wsTransport } from '../agent/ws-transport.ts';
import { systemClock } from '../protocol/index.ts';
import { launchChromium, requireConsoleBuild } from '../tests/support/browser.ts';
import { loginAsAdmin, startTestServer } from '../tests/support/server.ts';

const [outDir, ...paths] = process.argv.slice(2);
if (!outDir || paths.length === 0) {
  process.stderr.write('usage: node tools/screenshots.ts <out dir> <console path>[#click=<test id>]...\n');
  process.exit(2);
}
requireConsoleBuild();
fs.mkdirSync(outDir, { recursive: true });
const ts = await startTestServer('sqlite', { SIM_DEVICES: process.env.SIM_DEVICES ?? '0', SIM_CHURN_MS: '0' });
const simulated = Number(process.env.SIM_DEVICES ?? 0);
const fleet =
  simulated > 0
    ? new Fleet({
        ...DEFAULT_FLEET,
        gatewayUrl: ts.server.deviceSocketUrl,
        enrollKey: ts.server.seeded.enrollKey,
        count: simulated,
        churnEveryMs: 0,
        transport: wsTransport(),
        clock: systemClock,
        secrets: { load: () => ({}), save: () => {} },
      })
    : undefined;
fleet?.start();
while (fleet && fleet.onlineCount < simulated) await new Promise((r) => setTimeout(r, 200));
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
      for (const spec of paths) {
        const [route = '', click] = spec.split('#click=');
        await page.goto(`${ts.server.url}/user${route}`);
        // Not 'networkidle': pages that poll (the push log) never go quiet. The page's frame, then its lists.
        await page.locator('[data-testid="shell-page"], main').first().waitFor();
        await page.waitForFunction(() => !document.querySelector('.mantine-Loader-root, [data-loading="true"]'), undefined, { timeout: 15_000 }).catch(() => undefined);
        if (click) {
          await page.getByTestId(click).click();
          await page.waitForTimeout(500);
        }
        const name = `${route.replaceAll('/', '_').replace(/^_/, '') || 'home'}${click ? `-${click}` : ''}-${lang}-${width}.png`;
        await page.screenshot({ path: path.join(outDir, name) });
        process.stdout.write(`${path.join(outDir, name)}\n`);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  fleet?.stop();
  await ts.stop();
}
