import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientPasswordHash } from '../../server/seed.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { adminRoleId, client } from '../support/console-api.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/** An organisation's login account takes the organisation's name as its nickname: a long one. */
const LONG_NAME = 'Northern Provincial Logistics Cooperative Ltd';
const SIZES = [
  { width: 1366, height: 768 },
  { width: 1440, height: 900 },
  { width: 1600, height: 900 },
] as const;

describe('top bar in Chromium: nothing is clipped at laptop widths, in zh and en, with a long user name and an expiry', () => {
  let ts: TestServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite', { SIM_DEVICES: '0' });
    const admin = client(ts, (await loginAsAdmin(ts)).token);
    // The admin role: the widest top bar (system management is in its top navigation).
    const roleId = await adminRoleId(admin);
    const expireTime = Date.now() + 10 * 86_400_000;
    await admin.ok('POST', '/org/add', { name: LONG_NAME, account: 'longname', password: clientPasswordHash('Longname_1'), expireTime, roleId });
    token = (await loginAs(ts, 'longname', 'Longname_1')).token;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
  });

  for (const lang of ['en', 'zh'] as const) {
    for (const size of SIZES) {
      it(`fits at ${size.width}x${size.height} in ${lang}`, async () => {
        const context = await browser.newContext({ viewport: size, locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
        try {
          await context.addCookies([
            { name: 'Admin-Token', value: token, url: ts.server.url },
            { name: 'language', value: lang, url: ts.server.url },
          ]);
          const page = await context.newPage();
          await page.goto(`${ts.server.url}/user/`);
          const bar = page.getByTestId('top-bar');
          await page.getByTestId('account-expiry').waitFor();
          await page.getByTestId('realtime-status').waitFor();
          await page.getByTestId('top-nav-system').waitFor();
          expect(await page.getByTestId('user-menu').innerText()).toBe(LONG_NAME);
          expect(await bar.getByRole('combobox').count()).toBe(1);
          // Every box in the top bar shows all of its content, and none reaches past the bar or the window.
          const clipped = await bar.evaluate((root) => {
            const out: string[] = [];
            const barRect = root.getBoundingClientRect();
            if (root.scrollWidth > root.clientWidth) out.push(`top bar ${root.scrollWidth} > ${root.clientWidth}`);
            if (barRect.right > window.innerWidth + 0.5) out.push(`top bar right ${barRect.right} > ${window.innerWidth}`);
            for (const el of root.querySelectorAll<HTMLElement>('*')) {
              if (el instanceof SVGElement || el.clientWidth === 0) continue;
              const name = el.dataset['testid'] ?? `${el.tagName.toLowerCase()}.${el.className}`;
              if (el.scrollWidth > el.clientWidth) out.push(`${name}: ${el.scrollWidth} > ${el.clientWidth} "${el.innerText.slice(0, 40)}"`);
              const r = el.getBoundingClientRect();
              if (r.width > 0 && (r.right > barRect.right + 0.5 || r.left < barRect.left - 0.5)) out.push(`${name}: outside the bar (${r.left}..${r.right})`);
            }
            return out;
          });
          expect(clipped).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }

  it('keeps the sidebar logo inside the sidebar, level with the top bar (not running on under it)', async () => {
    const context = await browser.newContext({ viewport: SIZES[0], locale: 'en-US' });
    try {
      await context.addCookies([
        { name: 'Admin-Token', value: token, url: ts.server.url },
        { name: 'language', value: 'en', url: ts.server.url },
      ]);
      // The settings panel's choice, as it stores it.
      await context.addInitScript(() => localStorage.setItem('layoutSettings', JSON.stringify({ sidebarLogo: true })));
      const page = await context.newPage();
      await page.goto(`${ts.server.url}/user/`);
      await page.getByTestId('sidebar-logo-title').waitFor();
      const boxes = await page.evaluate(() => {
        const el = (id: string) => {
          const found = document.querySelector<HTMLElement>(`[data-testid=${id}]`);
          if (!found) throw new Error(`no ${id}`);
          return found;
        };
        const rect = (id: string) => el(id).getBoundingClientRect();
        const title = el('sidebar-logo-title');
        return { logo: rect('sidebar-logo'), title: rect('sidebar-logo-title'), bar: rect('top-bar'), titleFits: title.scrollWidth <= title.clientWidth };
      });
      expect(boxes.titleFits).toBe(true);
      expect(boxes.title.right).toBeLessThanOrEqual(boxes.bar.left);
      expect(boxes.logo.right).toBeLessThanOrEqual(boxes.bar.left);
      expect(boxes.logo.height).toBe(boxes.bar.height);
    } finally {
      await context.close();
    }
  });
});
