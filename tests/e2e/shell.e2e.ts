import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { client, createRole } from '../support/console-api.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const shots = path.resolve('test-results');

describe('layout shell in Chromium: sidebar groups, tags view, language switch, unknown paths', () => {
  let ts: TestServer;
  let browser: Browser;
  let page: Page;
  let adminToken: string;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite', { SIM_DEVICES: '0' });
    // The walking skeleton logs in through the form; here the session comes from the API, as a cookie.
    const { token } = await loginAsAdmin(ts);
    adminToken = token;
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
    await expect.poll(() => page.getByTestId('breadcrumb').innerText()).toMatch(/SIM cards\s*\/\s*Cards/);
    expect(await page.title()).toBe('Cards - Mobile Device Management');

    await page.locator('[data-testid=tag][data-path="/sim-card-management/card-management"]').click({ button: 'right' });
    await page.getByTestId('tag-context-menu').getByRole('menuitem', { name: 'Close others' }).click();
    await expect.poll(tagPaths).toEqual(['/dashboard/index', '/sim-card-management/card-management']);
    expect(page.url()).toMatch(/\/sim-card-management\/card-management$/);
    await page.screenshot({ path: path.join(shots, 'shell.png') });
  });

  it('keeps a page mounted with its typed filter while another tag is shown; close and refresh drop it', async () => {
    const filter = () => page.getByTestId('role-filter');
    // In through the top navigation: its system management opens the administrators, whose group then
    // stands open in the sidebar.
    await page.getByTestId('top-nav-system').click();
    await page.waitForURL(/\/authority-manage\/admin$/);
    await open(undefined, 'Roles', /\/authority-manage\/role-manage$/);
    await filter().fill('operators');
    await page.locator('[data-testid=tag][data-path="/dashboard/index"]').click();
    await page.waitForURL(/\/dashboard\/index$/);
    expect(await filter().isVisible()).toBe(false);
    await page.locator('[data-testid=tag][data-path="/authority-manage/role-manage"]').click();
    await page.waitForURL(/\/authority-manage\/role-manage$/);
    expect(await filter().inputValue()).toBe('operators');

    // Refresh re-mounts the page: the filter starts empty.
    await page.locator('[data-testid=tag][data-path="/authority-manage/role-manage"]').click({ button: 'right' });
    await page.getByTestId('tag-context-menu').getByRole('menuitem', { name: 'Refresh' }).click();
    await expect.poll(() => filter().inputValue()).toBe('');

    // Closing the tag drops the kept page: opening it again starts afresh.
    await filter().fill('kept');
    await page.locator('[data-testid=tag][data-path="/dashboard/index"]').click();
    await page.locator('[data-testid=tag][data-path="/authority-manage/role-manage"]').getByRole('button', { name: 'Close' }).click();
    await expect.poll(tagPaths).not.toContain('/authority-manage/role-manage');
    await open('authority', 'Roles', /\/authority-manage\/role-manage$/);
    expect(await filter().inputValue()).toBe('');
  });

  it('shows the customer-type icon, the footer, and the top navigation with system management for the admin role', async () => {
    const icon = page.getByTestId('customer-type');
    expect(await icon.getAttribute('data-type')).toBe('1');
    expect(await icon.getAttribute('aria-label')).toBe('Platform customer');
    // The seeded admin's organisation has no expiry: no expiry text.
    expect(await page.getByTestId('account-expiry').count()).toBe(0);
    await page.getByTestId('footer').waitFor();
    expect(await page.getByTestId('top-nav').getByRole('link').allInnerTexts()).toEqual(['Monitor centre', 'Operation analysis', 'Basic info', 'Charts', 'System management']);
    await page.getByTestId('top-nav-system').click();
    await page.waitForURL(/\/authority-manage\/admin$/);
    await page.getByTestId('top-nav-monitor').click();
    await page.waitForURL(/\/monitor-center\/index$/);
    await page.getByTestId('monitor-total').getByText('0').waitFor();
  });

  it('shows the expiry date in the top bar of an account that expires within 30 days', async () => {
    const admin = client(ts, adminToken);
    const expireTime = Date.now() + 10 * 86_400_000;
    const roleId = await createRole(admin, 'Expiring viewers', ['home_list', 'device_list']);
    await admin.ok('POST', '/org/add', { name: 'Expiring Co', account: 'expiringco', password: clientPasswordHash('Expiring_1'), expireTime, roleId });
    const { token } = await loginAs(ts, 'expiringco', 'Expiring_1');
    const context = await browser.newContext({ viewport: { width: 1600, height: 900 }, locale: 'en-US' });
    try {
      await context.addCookies([{ name: 'Admin-Token', value: token, url: ts.server.url }]);
      const other = await context.newPage();
      await other.goto(`${ts.server.url}/user/`);
      const expiry = other.getByTestId('account-expiry');
      await expiry.waitFor();
      const d = new Date(expireTime);
      const date = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
      expect(await expiry.innerText()).toBe(`Account expires ${date}`);
      expect(await expiry.getAttribute('data-tone')).toBe('soon');
      // Not the admin role: no system management in the top navigation.
      await other.getByTestId('top-nav').waitFor();
      expect(await other.getByTestId('top-nav-system').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('hides the footer on order-query, and scales the layout under 1340 px', async () => {
    await page.goto(`${ts.server.url}/user/order-query/index`);
    await page.getByTestId('breadcrumb').waitFor();
    expect(await page.getByTestId('footer').count()).toBe(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(() => page.evaluate(() => document.documentElement.style.zoom)).toBe('0.8');
    await page.setViewportSize({ width: 1600, height: 900 });
    await expect.poll(() => page.evaluate(() => document.documentElement.style.zoom)).toBe('');
    // Back where the language test expects to be.
    await page.goto(`${ts.server.url}/user/sim-card-management/card-management`);
    await page.getByTestId('footer').waitFor();
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
