import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../src/i18n/locales/en.ts';
import { zh } from '../../src/i18n/locales/zh.ts';
import { routeGroups, shellRoutes } from '../../src/router/routes.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';
import { shots } from '../support/shots.ts';

/**
 * Every page of the sidebar, opened by the admin in zh and in en (platform-core section 2, issue 19): the page
 * renders under its translated title, its lists settle (no endless loading, no error state), no text of the
 * page's own chrome (buttons, column heads, labels, tabs, placeholders) is in the other language, no message
 * key leaks as raw text, and no button of the page's toolbar or row actions is clipped.
 * Each page's own actions are exercised by its feature test (organization, content, cards, reports, ...);
 * this one holds them all to the same finish in both languages.
 */

type Catalogue = Record<string, unknown>;
function lookup(catalogue: Catalogue, key: string): string {
  let node: unknown = catalogue;
  for (const part of key.split('.')) node = (node as Catalogue | undefined)?.[part];
  if (typeof node !== 'string') throw new Error(`no text for ${key}`);
  return node;
}

/** Words that read the same in both languages: abbreviations and names the spec itself uses in Chinese. */
const SHARED_WORDS = new Set([
  'ID', 'SN', 'IMEI', 'ICCID', 'MSISDN', 'IMSI', 'APK', 'MCU', 'IP', 'MAC', 'CPU', 'RAM', 'ROM', 'URL', 'OK', 'SIM', 'GPS', 'API', 'APN',
  'MB', 'GB', 'KB', 'TB', 'MD5', 'SHA', 'CSV', 'UTC', 'Logo', 'LOGO', 'Android', 'Linux', 'Wi-Fi', 'WiFi', 'ISOBUS', 'OIDC', 'TOTP', 'SSO',
  'WLAN', 'Webhook', 'Webhooks', 'Token', 'HTTP', 'HTTPS', 'JSON', 'QR', 'PDF', 'MP4', 'H.264', 'vx.x', 'yyMMdd.HH', 'yyyy-MM-dd', 'Bearer',
]);

/** The button that opens a page's add or create dialog. */
const ADD_BUTTON = { en: /^(Add|New|Create)\b/, zh: /^(新增|添加|新建|创建)/ } as const;

/** Pages whose add button saves an inline form (no dialog); their feature tests cover it. */
const INLINE_ADD = new Set(['/integrations/webhooks']);
const dialogsSeen = new Set<string>();

const pages = shellRoutes.filter((r) => !r.hidden && !(r.group && routeGroups[r.group].hidden));

interface Finding {
  readonly where: string;
  readonly text: string;
}

/** What the page itself shows that a user of `lang` should not see. */
async function auditPage(page: Page, lang: 'zh' | 'en', rootSelector = '[data-testid="shell-page"]'): Promise<Finding[]> {
  return page.evaluate(
    ({ lang, shared, rootSelector }) => {
      const sharedWords = new Set(shared);
      const out: { where: string; text: string }[] = [];
      const main = document.querySelector(rootSelector);
      if (!main) return [{ where: rootSelector, text: 'not found' }];
      const visible = (el: Element) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
      };
      const chrome = main.querySelectorAll<HTMLElement>('button, th, label, [role="tab"], .mantine-InputWrapper-label, .mantine-InputWrapper-error, .mantine-SegmentedControl-label, .mantine-Modal-title');
      const texts: { where: string; text: string }[] = [];
      for (const el of chrome) {
        if (!visible(el)) continue;
        const text = el.innerText.trim();
        if (text) texts.push({ where: `${el.tagName.toLowerCase()}${el.dataset['testid'] ? `[${el.dataset['testid']}]` : ''}`, text });
      }
      for (const el of main.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input[placeholder], textarea[placeholder]')) {
        if (visible(el) && el.placeholder.trim() && !/^https?:\/\//.test(el.placeholder.trim())) texts.push({ where: `placeholder${el.dataset['testid'] ? `[${el.dataset['testid']}]` : ''}`, text: el.placeholder.trim() });
      }
      if ((window as unknown as { __dump?: boolean }).__dump) for (const t of texts) out.push({ where: `dump ${t.where}`, text: t.text });
      for (const { where, text } of texts) {
        // A message key shown raw: "content.push.title", "route.x".
        if (/^[a-z][A-Za-z]+(\.[a-zA-Z]+)+$/.test(text)) out.push({ where: `${where} raw key`, text });
        if (lang === 'zh') {
          // In Chinese, chrome text is Chinese: an ASCII word of 3+ letters outside the shared abbreviations is English.
          const words = text.match(/[A-Za-z][A-Za-z'-]{2,}/g) ?? [];
          const english = words.filter((w) => !sharedWords.has(w));
          if (english.length > 0 && !/[\u4e00-\u9fff]/.test(text)) out.push({ where, text });
        } else if (/[\u4e00-\u9fff]/.test(text)) {
          out.push({ where, text });
        }
      }
      // A list with no rows says so: an empty table body is a defect.
      // (The shared list's empty text, data-testid=table-empty, sits under the table in the same block.)
      const saysEmpty = (table: HTMLElement) => {
        let scope: HTMLElement | null = table;
        for (let i = 0; i < 4 && scope; i++, scope = scope.parentElement) {
          // The text must be this table's own: a block holding a second table holds that one's empty text.
          if (scope.querySelectorAll('table').length > 1) return false;
          const empty = scope.querySelector<HTMLElement>('[data-testid="table-empty"]');
          if (empty && visible(empty) && empty.innerText.trim()) return true;
        }
        return false;
      };
      for (const table of main.querySelectorAll<HTMLElement>('table')) {
        if (visible(table) && table.querySelector('thead') && !(table.querySelector('tbody')?.innerText.trim() ?? '') && !saysEmpty(table)) out.push({ where: `table${table.dataset['testid'] ? `[${table.dataset['testid']}]` : ''}`, text: 'no rows and no empty-state text' });
      }
      // Buttons (toolbar, row actions) show their whole label.
      for (const el of main.querySelectorAll<HTMLElement>('button')) {
        if (!visible(el)) continue;
        const label = el.querySelector<HTMLElement>('.mantine-Button-label') ?? el;
        if (label.scrollWidth > label.clientWidth + 1) out.push({ where: `clipped button${el.dataset['testid'] ? `[${el.dataset['testid']}]` : ''}`, text: el.innerText.trim() });
      }
      return out;
    },
    { lang, shared: [...SHARED_WORDS], rootSelector },
  );
}

describe('every sidebar page in Chromium, in zh and en', () => {
  let ts: TestServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite', { SIM_DEVICES: '3' });
    token = (await loginAsAdmin(ts)).token;
    browser = await launchChromium();
  });
  afterAll(async () => {
    console.log(`add dialogs exercised: ${[...dialogsSeen].join(' ')}`);
    await browser?.close();
    await ts?.stop();
  });

  for (const lang of ['en', 'zh'] as const) {
    describe(lang, () => {
      let context: BrowserContext;
      let page: Page;
      const errors: string[] = [];
      beforeAll(async () => {
        context = await browser.newContext({ viewport: { width: 1366, height: 768 }, locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
        await context.addCookies([
          { name: 'Admin-Token', value: token, url: ts.server.url },
          { name: 'language', value: lang, url: ts.server.url },
        ]);
        page = await context.newPage();
        page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
      });
      afterAll(async () => {
        await context?.close();
      });

      for (const route of pages) {
        it(`${route.path}: titled, settled, in ${lang} only, nothing clipped`, async () => {
          const catalogue = (lang === 'zh' ? zh : en) as Catalogue;
          const title = `${lookup(catalogue, route.titleKey)} - ${lookup(catalogue, 'app.title')}`;
          await page.goto(`${ts.server.url}/user${route.path}`);
          await page.waitForFunction((t) => document.title === t, title);
          // The page's own code has loaded and rendered (the title is set before its lazy chunk arrives).
          await page.waitForFunction(() => {
            const main = document.querySelector<HTMLElement>('[data-testid="shell-page"]');
            return main !== null && main.querySelector('[data-testid="page-loading"]') === null && main.querySelectorAll('button, th, input, canvas, [role="tab"]').length > 0;
          });
          // Lists settle: no table is still loading, none shows its error state.
          await page.waitForFunction(() => document.querySelector('[data-testid="shell-page"] [data-testid="table-loading"]') === null);
          expect(await page.getByTestId('table-error').count()).toBe(0);
          if (process.env['SWEEP_DUMP']) await page.evaluate(() => { (window as unknown as { __dump?: boolean }).__dump = true; });
          // Lists that load by themselves (virtual lists, detail tables) have rows or their empty text.
          await page
            .waitForFunction(() => [...document.querySelectorAll<HTMLElement>('[data-testid="shell-page"] table')].every((t) => !t.querySelector('thead') || (t.querySelector('tbody')?.innerText.trim() ?? '') !== '' || t.closest('[data-testid="shell-page"]')?.querySelector('[data-testid="table-empty"]')), undefined, { timeout: 5_000 })
            .catch(() => undefined);
          expect(await auditPage(page, lang)).toEqual([]);
          await shots(page, `page${route.path.replace(/[/]+/g, '-')}`, lang);
          // The page's add/create dialog: its labels, and the errors of an empty submit, are in the same language.
          const opener = page.getByTestId('shell-page').getByRole('button', { name: ADD_BUTTON[lang] }).first();
          if (!INLINE_ADD.has(route.path) && (await opener.count()) > 0 && (await opener.isEnabled())) {
            dialogsSeen.add(route.path);
            await opener.click();
            const dialog = page.locator('.mantine-Modal-content[role="dialog"]').last();
            await dialog.waitFor();
            const submit = dialog.locator('button[type="submit"]');
            if ((await submit.count()) === 1) {
              await submit.click();
              await dialog.locator('.mantine-InputWrapper-error').first().waitFor();
            }
            expect(await auditPage(page, lang, '.mantine-Modal-content[role="dialog"]')).toEqual([]);
            await page.keyboard.press('Escape');
            await dialog.waitFor({ state: 'detached' });
          }
          expect(errors).toEqual([]);
        });
      }
    });
  }
});
