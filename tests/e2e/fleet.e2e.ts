import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { simulatedBackend } from '../../agent/simulator/simulated-backend.ts';
import { simulatedStreams } from '../../agent/simulator/video-source.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { startTestFleet } from '../support/fleet.ts';
import { api, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const FLEET_SIZE = 100;
const shots = path.resolve('test-results');

describe('fleet views in Chromium: live list, bulk reboot, live view', () => {
  let ts: TestServer;
  let fleet: Fleet;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite');
    fleet = await startTestFleet(ts, { count: FLEET_SIZE, rebootDownMs: 1_000 });
    const { token, orgId } = await loginAsAdmin(ts);
    // The bulk run of 100 devices itself is this test's subject: no four-eyes size here (approvals.e2e.ts).
    await api(ts.server.url, 'POST', '/approval/policy', { token, body: { orgId, wipes: true, bulkOver: 0, campaignOver: 100, ttlMinutes: 1440 } });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, locale: 'en-US' });
    await context.addCookies([{ name: 'Admin-Token', value: token, url: ts.server.url }]);
    page = await context.newPage();
    fs.mkdirSync(shots, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    fleet?.stop();
    await ts?.stop();
  });

  const row = (sn: string) => page.locator(`tr[data-sn="${sn}"]`);

  it('lists the fleet and shows a live state change without a reload', async () => {
    await page.goto(`${ts.server.url}/user/device-management/index`);
    await page.getByTestId('device-total').getByText(`${FLEET_SIZE} devices`).waitFor();
    await page.getByTestId('realtime-status').getByText('Live').waitFor();
    const sn = (await page.locator('tbody tr[data-sn]').first().getAttribute('data-sn')) ?? '';
    const device = fleet.devices.find((d) => d.sn === sn);
    if (!device) throw new Error(`row ${sn} is not a simulated device`);
    await row(sn).and(page.locator('[data-online=online]')).waitFor();
    device.stop();
    await row(sn).and(page.locator('[data-online=offline]')).waitFor();
    device.start();
    await row(sn).and(page.locator('[data-online=online]')).waitFor();
    // Sorting is done by the server: ascending serials put the first device first.
    await page.getByRole('button', { name: /^SN/ }).click();
    await page.getByRole('button', { name: /^SN/ }).click();
    await page.locator('tbody tr[data-sn="SIM00001"]').first().waitFor();
    await page.screenshot({ path: path.join(shots, 'fleet-list.png') });
  });

  it('reboots 100 devices chosen by query and shows 100 outcomes as they arrive', async () => {
    await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
    await page.goto(`${ts.server.url}/user/remote-management/index`);
    await page.getByTestId('control-type').getByText('By query').click();
    await page.getByTestId('remote-targets').getByText(`${FLEET_SIZE} devices match the query`).waitFor();
    await page.getByTestId('bulk-reboot').click();
    await page.getByText(`Reboot on ${FLEET_SIZE} devices?`).waitFor();
    await page.getByTestId('confirm-bulk').click();
    const summary = page.getByTestId('bulk-summary');
    await summary.and(page.locator(`[data-done="${FLEET_SIZE}"]`)).waitFor({ timeout: 30_000 });
    expect(await summary.getAttribute('data-ok')).toBe(String(FLEET_SIZE));
    expect(await summary.textContent()).toBe(`${FLEET_SIZE} of ${FLEET_SIZE} done: ${FLEET_SIZE} succeeded, 0 failed`);
    expect(await page.getByTestId('outcome').first().locator('[data-result="0"]').count()).toBe(1);
    // The results panel is virtualised: scroll it through and read every outcome row it shows on the way.
    const rows = await page.evaluate(async () => {
      const scroller = document.querySelector('[data-testid=outcome]')?.parentElement?.parentElement;
      const seen = new Map<string, string>();
      if (!scroller) return [];
      const painted = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (let top = 0; ; top += Math.max(1, Math.floor(scroller.clientHeight / 2))) {
        scroller.scrollTop = top;
        await painted();
        for (const el of document.querySelectorAll('[data-testid=outcome]')) seen.set(el.getAttribute('data-sn') ?? '', el.querySelector('[data-result]')?.getAttribute('data-result') ?? '');
        if (top >= scroller.scrollHeight) break;
      }
      return [...seen];
    });
    expect(rows).toHaveLength(FLEET_SIZE);
    expect(rows.map(([sn]) => sn).sort()).toEqual(fleet.devices.map((d) => d.sn).sort());
    expect(rows.filter(([, result]) => result !== '0')).toEqual([]);
    await page.screenshot({ path: path.join(shots, 'fleet-bulk-reboot.png') });
  });

  /**
   * Opens the live view of an online device on `p` and asserts on decoded frames of whichever path the
   * player chose: frames output by VideoDecoder and painted (WebCodecs), or frames the video element
   * decoded (jmuxer over MSE). Returns that path, or undefined when this browser cannot decode H.264.
   */
  async function watchLive(p: Page, shot: string): Promise<string | undefined> {
    await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
    await p.goto(`${ts.server.url}/user/device-management/index`);
    await p.getByTestId('device-total').getByText(`${FLEET_SIZE} devices`).waitFor();
    const decodable = await p.evaluate(() => typeof VideoDecoder !== 'undefined' || (typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported('video/mp4; codecs="avc1.42E01E"')));
    if (!decodable) {
      process.stdout.write('\n[fleet e2e] THIS CHROMIUM CANNOT DECODE H.264 (no WebCodecs VideoDecoder, MSE avc1.42E01E unsupported): live view decoding NOT verified\n\n');
      return undefined;
    }
    const target = p.locator('tbody tr[data-online=online][data-system=android]').first();
    const sn = (await target.getAttribute('data-sn')) ?? '';
    await target.getByRole('button', { name: 'Live view' }).click();
    await p.getByTestId('live-view').and(p.locator('[data-status=playing]')).waitFor();
    const stats = p.getByTestId('live-stats');
    await stats.and(p.locator(':not([data-path=""])')).waitFor({ timeout: 20_000 });
    const livePath = (await stats.getAttribute('data-path')) ?? '';
    let decoded: { total: number; width: number; height: number };
    if (livePath === 'webcodecs') {
      // Frames output by VideoDecoder and painted onto the canvas, as the player counts them.
      await p.waitForFunction(() => Number(document.querySelector('[data-testid=live-stats]')?.getAttribute('data-shown') ?? 0) >= 30, undefined, { timeout: 20_000 });
      decoded = await p.evaluate(() => {
        const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=live-canvas]');
        return { total: Number(document.querySelector('[data-testid=live-stats]')?.getAttribute('data-shown') ?? 0), width: canvas?.width ?? 0, height: canvas?.height ?? 0 };
      });
      // The painted picture is the clip's test pattern, not a blank canvas: many distinct colours.
      const colours = await p.evaluate(() => {
        const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=live-canvas]');
        const data = canvas?.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? new Uint8ClampedArray();
        const seen = new Set<number>();
        for (let i = 0; i < data.length; i += 4 * 97) seen.add(((data[i] ?? 0) >> 5) * 64 + ((data[i + 1] ?? 0) >> 5) * 8 + ((data[i + 2] ?? 0) >> 5));
        return seen.size;
      });
      expect(colours).toBeGreaterThan(8);
      expect(await p.getByTestId('live-canvas').isVisible()).toBe(true);
    } else {
      // Decoded frames, as the browser counts them.
      await p.waitForFunction(() => {
        const video = document.querySelector<HTMLVideoElement>('[data-testid=live-video]');
        return (video?.getVideoPlaybackQuality().totalVideoFrames ?? 0) >= 30;
      }, undefined, { timeout: 20_000 });
      decoded = await p.evaluate(() => {
        const video = document.querySelector<HTMLVideoElement>('[data-testid=live-video]');
        const q = video?.getVideoPlaybackQuality();
        return { total: q?.totalVideoFrames ?? 0, width: video?.videoWidth ?? 0, height: video?.videoHeight ?? 0 };
      });
      expect(await p.getByTestId('live-video').isVisible()).toBe(true);
    }
    expect(['webcodecs', 'mse']).toContain(livePath);
    expect(decoded).toMatchObject({ width: 320, height: 240 });
    expect(decoded.total).toBeGreaterThanOrEqual(30);
    await stats.and(p.locator(':not([data-latency=""])')).waitFor();
    process.stdout.write(`[fleet e2e] live view of ${sn} via ${livePath}: ${decoded.total} frames decoded, ${await stats.textContent()}\n`);
    expect(ts.server.gateway.streams.streamCount).toBe(1);
    await p.screenshot({ path: path.join(shots, shot) });
    await p.keyboard.press('Escape');
    await expect.poll(() => ts.server.gateway.streams.streamCount).toBe(0);
    return livePath;
  }

  it('decodes live view frames from a simulated device, or says clearly that this browser cannot', async (ctx) => {
    const livePath = await watchLive(page, 'fleet-live-view.png');
    if (livePath === undefined) ctx.skip();
  });

  it('falls back to jmuxer over MSE where WebCodecs is missing, still showing decoded frames', async (ctx) => {
    const context = page.context();
    const fallback = await context.newPage();
    // As in a browser without WebCodecs: the player must choose the MSE path on its own.
    await fallback.addInitScript(() => Reflect.deleteProperty(globalThis, 'VideoDecoder'));
    try {
      const livePath = await watchLive(fallback, 'fleet-live-view-mse.png');
      if (livePath === undefined) ctx.skip();
      expect(livePath).toBe('mse');
    } finally {
      await fallback.close();
    }
  });
  /**
   * Opens the live view of an online Android device whose support flags give it a camera and a
   * microphone. For an Android simulated device the flags depend on its serial alone, so the test reads
   * them as the device does.
   */
  async function openLiveWithCamera(p: Page): Promise<string> {
    await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
    await p.goto(`${ts.server.url}/user/device-management/index`);
    await p.getByTestId('device-total').getByText(`${FLEET_SIZE} devices`).waitFor();
    const rows = p.locator('tbody tr[data-online=online][data-system=android]');
    await rows.first().waitFor();
    const info = { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.01', networkType: 2 } as const;
    for (const sn of await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-sn') ?? ''))) {
      const { support } = await simulatedBackend(sn, info, Date.now).systemInfo();
      if (!support.camera || !support.mic) continue;
      await p.locator(`tbody tr[data-sn="${sn}"]`).getByRole('button', { name: 'Live view' }).click();
      await p.getByTestId('live-view').waitFor();
      return sn;
    }
    throw new Error('no online Android device with a camera and a microphone on this page');
  }

  /** Frames shown and the picture's decoded size, on whichever path the player chose. */
  const picture = (p: Page) =>
    p.evaluate(() => {
      const stats = document.querySelector('[data-testid=live-stats]');
      const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=live-canvas]');
      const video = document.querySelector<HTMLVideoElement>('[data-testid=live-video]');
      const webcodecs = stats?.getAttribute('data-path') === 'webcodecs';
      return {
        shown: Number(stats?.getAttribute('data-shown') ?? 0),
        width: webcodecs ? (canvas?.width ?? 0) : (video?.videoWidth ?? 0),
        height: webcodecs ? (canvas?.height ?? 0) : (video?.videoHeight ?? 0),
      };
    });

  it('switches to the front camera (a picture of its own, still decoding) and plays the device\'s voice', async (ctx) => {
    const decodable = await page.evaluate(() => typeof VideoDecoder !== 'undefined' || (typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported('video/mp4; codecs="avc1.42E01E"')));
    if (!decodable) {
      process.stdout.write('\n[fleet e2e] THIS CHROMIUM CANNOT DECODE H.264: camera switch NOT verified\n\n');
      ctx.skip();
    }
    const sn = await openLiveWithCamera(page);
    const stats = page.getByTestId('live-stats');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=live-stats]')?.getAttribute('data-shown') ?? 0) >= 10, undefined, { timeout: 20_000 });
    const screen = await picture(page);
    expect(screen).toMatchObject({ width: 320, height: 240 });

    await page.getByTestId('live-view').getByText('Front camera').click();
    await stats.and(page.locator('[data-camera=front]')).waitFor({ timeout: 20_000 });
    // A new player for the new stream: its frames decode, at the front camera's portrait size.
    await page.waitForFunction(
      () => {
        const stats = document.querySelector('[data-testid=live-stats]');
        const canvas = document.querySelector<HTMLCanvasElement>('[data-testid=live-canvas]');
        const video = document.querySelector<HTMLVideoElement>('[data-testid=live-video]');
        const webcodecs = stats?.getAttribute('data-path') === 'webcodecs';
        const height = webcodecs ? canvas?.height : video?.videoHeight;
        return Number(stats?.getAttribute('data-shown') ?? 0) >= 10 && height === 320;
      },
      undefined,
      { timeout: 20_000 },
    );
    const front = await picture(page);
    expect(front).toMatchObject({ width: 240, height: 320 });
    expect(front.shown).toBeGreaterThanOrEqual(10);
    expect(simulatedStreams.of(sn).at(-1)).toBe('front');
    expect(ts.server.gateway.streams.streamCount).toBe(1);
    process.stdout.write(`[fleet e2e] camera switch on ${sn}: screen ${screen.width}x${screen.height} -> front ${front.width}x${front.height}, ${front.shown} frames shown since\n`);

    const audioDecoder = await page.evaluate(() => typeof AudioDecoder !== 'undefined');
    await page.getByTestId('live-view').getByRole('switch', { name: 'Voice' }).click();
    if (!audioDecoder) {
      process.stdout.write('\n[fleet e2e] THIS CHROMIUM HAS NO WebCodecs AudioDecoder: voice decoding NOT verified\n\n');
      await page.getByTestId('live-voice-problem').and(page.locator('[data-problem=noAudioDecoder]')).waitFor();
    } else {
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=live-stats]')?.getAttribute('data-audio') ?? 0) >= 10, undefined, { timeout: 20_000 });
      const voiceFrames = Number(await stats.getAttribute('data-audio'));
      expect(voiceFrames).toBeGreaterThan(0);
      expect(await stats.textContent()).toContain('voice');
      // Turning voice on kept the same stream: no second encode on the device.
      expect(ts.server.gateway.streams.streamCount).toBe(1);
      process.stdout.write(`[fleet e2e] voice on ${sn}: ${voiceFrames} Opus frames decoded, ${await stats.textContent()}\n`);
    }
    await page.screenshot({ path: path.join(shots, 'fleet-live-camera-voice.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => ts.server.gateway.streams.streamCount).toBe(0);
  });

  it('reboots the device from the live view after a confirmation, through the device command path', async () => {
    const sn = await openLiveWithCamera(page);
    const device = fleet.devices.find((d) => d.sn === sn);
    if (!device) throw new Error(`${sn} is not a simulated device`);
    await page.getByTestId('live-reboot').click();
    await page.getByText(`Reboot ${sn}? It will go offline for a short while.`).waitFor();
    await page.getByTestId('live-reboot-confirm').click();
    // The simulated device acts on Reboot by going away for rebootDownMs (1 s here) and coming back.
    await expect.poll(() => device.loggedIn, { interval: 20, timeout: 10_000 }).toBe(false);
    await expect.poll(() => device.loggedIn, { interval: 100, timeout: 20_000 }).toBe(true);
    await page.keyboard.press('Escape');
  });
});
