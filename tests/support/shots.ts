import fs from 'node:fs';
import type { Page } from 'playwright-core';

/**
 * With SHOTS_DIR set: the page at 1366x768 and 1600x900 as `<name>-<language>-<w>x<h>.png`, for a person to
 * look at (the closing notes' screenshots); without it, nothing. The viewport is put back afterwards.
 */
export async function shots(page: Page, name: string, language: 'en' | 'zh' = 'en'): Promise<void> {
  const dir = process.env.SHOTS_DIR;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const before = page.viewportSize();
  for (const [width, height] of [[1366, 768], [1600, 900]] as const) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: `${dir}/${name}-${language}-${width}x${height}.png` });
  }
  if (before) await page.setViewportSize(before);
}
