import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './browser.ts';
import { loginAsAdmin, startTestServer, type TestServer } from './server.ts';

/** A test server and one Chromium page on it, for the duration of a describe block. */
export interface ConsolePage {
  readonly ts: TestServer;
  readonly page: Page;
  /** Logs in as admin through the API and hands the session to the page (the login screen has its own test). */
  signInAsAdmin(): Promise<string>;
}

/**
 * Registers beforeAll/afterAll that start and stop a server and a browser page; read the fields inside tests.
 * `env` adds server settings (e.g. PAYMENT_SANDBOX=on for pages that pay).
 */
export function consolePage(env: Record<string, string> = {}): ConsolePage {
  let ts: TestServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    ts = await startTestServer('sqlite', env);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  });
  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('consolePage() is used before its beforeAll ran');
    return v;
  };
  return {
    get ts() {
      return ready(ts);
    },
    get page() {
      return ready(page);
    },
    async signInAsAdmin() {
      const server = ready(ts);
      const { token } = await loginAsAdmin(server);
      await ready(page).context().addCookies([{ name: 'Admin-Token', value: token, url: server.server.url }]);
      return token;
    },
  };
}
