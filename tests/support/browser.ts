import fs from 'node:fs';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, installed by .ci/run (apt-get install chromium). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches headless Chromium with the flags this closed network needs. */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install it with "apt-get install -y chromium" or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Fails early, with the fix, when the console build the test server serves (CONSOLE_DIR, else dist/) is missing. */
export function requireConsoleBuild(): void {
  const dir = path.resolve(process.env.CONSOLE_DIR ?? 'dist');
  if (!fs.existsSync(path.join(dir, 'index.html'))) throw new Error(`${dir} has no console build: run \`npm run build\` first (npm run test:e2e does), or point CONSOLE_DIR at one`);
}
