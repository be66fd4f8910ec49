import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const shots = path.resolve('test-results');

describe('layout shell in Chromium: sidebar groups, tags view, language switch, unknown paths', () => {
  let ts: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite', { SIM_DEVICES: '0' });
    // The walking skeleton logs in through the form; here the session comes from the API, as a cookie.
    const { token } = await loginAsAdmin(ts);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1600, height: 900 }, locale: 'en-US' });
    await context.addCookies([{ name: 'Admin-Token', value: token, url: ts.server.url }]);
    page = await context.newPage();
    fs.mkdirSync(shots, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
  });

  const sidebar = () => page.getByTestId('sidebar');
  const tagPaths = () => page.getByTestId('tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
  const open = async (group: string | undefined, name: string, url: RegExp) => {
    if (group) await sidebar().getByTestId(`menu-group-${group}`).click();
    await sidebar().getByRole('link', { name, exact: true }).click();
    await page.waitForURL(url);
  };

  it('shows the sidebar with the groups the admin role may see', async () => {
    await page.goto(`${ts.server.url}/user/`);
    await page.waitForURL(/\/user\/dashboard\/index$/);
    for (const group of ['Firmware', 'Statistical reports', 'Permissions', 'SIM cards']) await sidebar().getByText(group, { exact: true }).waitFor();
    expect(await sidebar().getByText('Positioning service').count()).toBe(0); // a hidden group
    expect(await tagPaths()).toEqual(['/dashboard/index']);
    expect(await page.title()).toBe('Dashboard - Mobile Device Management');
  });

  it('adds a tag for each page opened, and close-others keeps the dashboard and the current page', async () => {
    await open('report', 'Multi-model analysis', /\/statistical-report\/multi-model-analysis$/);
    await open(undefined, 'Organisation management', /\/organization-management\/index$/);
    await open('sim', 'Cards', /\/sim-card-management\/card-management$/);
    expect(await tagPaths()).toEqual(['/dashboard/index', '/statistical-report/multi-model-analysis', '/organization-management/index', '/sim-card-management/card-management']);
    await page.getByTestId('area-placeholder').getByText('Arrives in a later release').waitFor();
    expect(await page.getByTestId('breadcrumb').innerText()).toMatch(/SIM cards\s*\/\s*Cards/);
    expect(await page.title()).toBe('Cards - Mobile Device Management');

    await page.locator('[data-testid=tag][data-path="/sim-card-management/card-management"]').click({ button: 'right' });
    await page.getByTestId('tag-context-menu').getByRole('menuitem', { name: 'Close others' }).click();
    await expect.poll(tagPaths).toEqual(['/dashboard/index', '/sim-card-management/card-management']);
    expect(page.url()).toMatch(/\/sim-card-management\/card-management$/);
    await page.screenshot({ path: path.join(shots, 'shell.png') });
  });

  it('switches the language to 中文: the page reloads and shows Chinese titles', async () => {
    await page.getByRole('combobox', { name: 'Language' }).click();
    const reloaded = page.waitForEvent('load');
    await page.getByRole('option', { name: '中文' }).click();
    await reloaded;
    await sidebar().getByText('统计报表', { exact: true }).waitFor();
    await page.getByTestId('tag').getByText('卡管理').waitFor();
    expect(await page.title()).toBe('卡管理 - 智能终端管控平台');
  });

  it('sends an unknown path to /login', async () => {
    await page.goto(`${ts.server.url}/user/some/unknown/path`);
    await page.waitForURL(/\/user\/login$/);
  });
});
