import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createVirtualDevice } from '../agent/simulator/virtual-device.ts';
import { wsTransport } from '../agent/ws-transport.ts';
import { OnlineState, systemClock } from '../protocol/index.ts';
import { BUS_SUBJECTS, Subject } from '../server/bus/subjects.ts';
import { NatsBus } from '../server/bus/nats-bus.ts';
import { launchChromium } from '../tests/support/browser.ts';
import { loginAsAdmin, startTestServer } from '../tests/support/server.ts';
import type { BenchRow } from './table.ts';

// Issue 7's load: 10,000 devices in the list, 2,000 presence changes a second for 30 s.
const DEVICES = Number(process.env.BENCH_UI_DEVICES ?? 10_000);
const RATE = Number(process.env.BENCH_UI_RATE ?? 2_000);
const SECONDS = Number(process.env.BENCH_UI_SECONDS ?? 30);
const LIVE_SECONDS = Number(process.env.BENCH_UI_LIVE_SECONDS ?? 10);
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Installs a frame counter and a long-task observer in the page, and returns a reader of both. */
async function startProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __probe: { frames: number; longest: number; tasks: number; stop: boolean } };
    w.__probe = { frames: 0, longest: 0, tasks: 0, stop: false };
    const tick = () => {
      if (w.__probe.stop) return;
      w.__probe.frames++;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        w.__probe.tasks++;
        w.__probe.longest = Math.max(w.__probe.longest, e.duration);
      }
    }).observe({ type: 'longtask' });
  });
}

async function readProbe(page: Page): Promise<{ frames: number; longest: number; tasks: number }> {
  return page.evaluate(() => {
    const p = (window as unknown as { __probe: { frames: number; longest: number; tasks: number; stop: boolean } }).__probe;
    p.stop = true;
    return { frames: p.frames, longest: p.longest, tasks: p.tasks };
  });
}

/** JS heap in use after a forced garbage collection, in bytes. */
async function heapAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}

/** The console build to serve: CONSOLE_DIR when given, else a fresh build in a temp dir (never the shared dist/). */
function consoleBuild(): { dir: string; temporary: boolean } {
  if (process.env.CONSOLE_DIR) return { dir: process.env.CONSOLE_DIR, temporary: false };
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ui-bench-dist-'));
  execFileSync(process.execPath, [path.resolve('node_modules/vite/bin/vite.js'), 'build', '--outDir', out, '--emptyOutDir', '--logLevel', 'error'], { stdio: 'inherit' });
  return { dir: out, temporary: true };
}

/**
 * The console under fleet-scale load in real Chromium: the device list holding 10,000 devices while a
 * simulated cluster node announces 2,000 presence changes a second over NATS (the gateway forwards them
 * to the console exactly as it forwards another node's devices), then live-view latency from a
 * simulated device's capture timestamp to the decoded frame. Baseline: the same probes on an idle page.
 */
export async function runUiBench(): Promise<BenchRow[]> {
  const build = consoleBuild();
  process.env.CONSOLE_DIR = build.dir;
  const prefix = `uibench${process.pid}`;
  const ts = await startTestServer('sqlite', { NATS_URL, NATS_PREFIX: prefix });
  const sim = await NatsBus.connect(NATS_URL, 'ui-bench-simulated-node', prefix, BUS_SUBJECTS);
  const browser = await launchChromium();
  try {
    const login = await loginAsAdmin(ts);
    const now = Date.now();
    const sns: string[] = [];
    for (let i = 0; i < DEVICES; i += 500) {
      const values = Array.from({ length: Math.min(500, DEVICES - i) }, (_, k) => {
        const sn = `UIB${String(i + k).padStart(6, '0')}`;
        sns.push(sn);
        return { sn, org_id: login.orgId, secret_hash: 'x', model: 'P10', system_type: 'android', system_version: 'Android 13', image_version: '241001.01', online_state: OnlineState.Online, latest_online_time: now, created_at: now };
      });
      await ts.server.db.insertInto('devices').values(values).execute();
    }

    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, locale: 'en-US' });
    await context.addCookies([{ name: 'Admin-Token', value: login.token, url: ts.server.url }]);
    const page = await context.newPage();

    // Baseline: the same probes on an idle page in the same browser.
    await page.goto(`${ts.server.url}/user/404`);
    await startProbe(page);
    await sleep(5_000);
    const idle = await readProbe(page);

    await page.goto(`${ts.server.url}/user/device-management/index`);
    await page.getByTestId('device-total').getByText(`${DEVICES} devices`).waitFor({ timeout: 60_000 });
    await page.getByTestId('realtime-status').getByText('Live').waitFor();
    // Scroll into the middle of the fleet, as an operator would, so rows load and stay subscribed there.
    await page.getByTestId('device-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    // Measure the storm, not the first render of the rows scrolled to: wait until no row is still loading.
    await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-sn]').length > 10 && document.querySelectorAll('tbody tr[aria-hidden]').length === 0);
    await sleep(1_000);
    const heapBefore = await heapAfterGc(page);
    await startProbe(page);

    // The simulated node: RATE changes a second in 10 ms ticks, each flipping a random device.
    const online = new Map<string, boolean>();
    let published = 0;
    const started = performance.now();
    const end = started + SECONDS * 1_000;
    let owed = 0;
    let last = started;
    while (performance.now() < end) {
      const t = performance.now();
      owed += ((t - last) / 1_000) * RATE;
      last = t;
      for (; owed >= 1; owed--) {
        const sn = sns[Math.floor(Math.random() * sns.length)] as string;
        const next = !(online.get(sn) ?? true);
        online.set(sn, next);
        sim.publish(Subject.presence, { node: 'ui-bench-sim', sn, orgId: login.orgId, online: next, time: Date.now() });
        published++;
      }
      await sleep(10);
    }
    const loaded = await readProbe(page);
    const elapsed = (performance.now() - started) / 1_000;
    // Messages still in flight when the load stops are counted once they land.
    await sleep(500);
    const applied = await page.evaluate(() => (globalThis as { __dccLiveStates?: { applied: number } }).__dccLiveStates?.applied ?? 0);
    const heapAfter = await heapAfterGc(page);

    // Live view: one simulated device streaming to the console; latency as the view measures it.
    const device = createVirtualDevice({
      gatewayUrl: ts.server.deviceSocketUrl,
      sn: 'UIBLIVE',
      enrollKey: ts.server.seeded.enrollKey,
      info: { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.01', networkType: 2 },
      transport: wsTransport(),
      clock: systemClock,
      rebootDownMs: 1_000,
      telemetry: false,
    });
    device.start();
    await device.waitLoggedIn();
    await page.reload();
    await page.getByRole('textbox', { name: 'SN' }).fill('UIBLIVE');
    const liveRow = page.locator('tr[data-sn="UIBLIVE"][data-online=online]');
    await liveRow.waitFor();
    await liveRow.getByRole('button', { name: 'Live view' }).click();
    const decodable = await page.evaluate(() => typeof VideoDecoder !== 'undefined' || (typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported('video/mp4; codecs="avc1.42E01E"')));
    const latencies: number[] = [];
    let liveFps = 0;
    // The decoder the player chose for this stream: WebCodecs onto a canvas, or jmuxer through MSE.
    let livePath = 'not measured';
    if (decodable) {
      await page.getByTestId('live-view').and(page.locator('[data-status=playing]')).waitFor({ timeout: 20_000 });
      await page.getByTestId('live-stats').and(page.locator(':not([data-latency=""])')).waitFor({ timeout: 20_000 });
      livePath = (await page.getByTestId('live-stats').getAttribute('data-path')) === 'webcodecs' ? 'WebCodecs VideoDecoder to canvas' : 'jmuxer over MSE';
      for (let i = 0; i < LIVE_SECONDS * 4; i++) {
        await sleep(250);
        const stats = page.getByTestId('live-stats');
        const latency = Number(await stats.getAttribute('data-latency'));
        if (Number.isFinite(latency) && latency > 0) latencies.push(latency);
        liveFps = Number(await stats.getAttribute('data-fps'));
      }
    } else {
      process.stdout.write('ui bench: this Chromium cannot decode H.264; live view latency not measured\n');
    }
    device.dispose();
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;

    const idleFps = idle.frames / 5;
    return [
      { name: `presence changes driven (${DEVICES} devices, ${SECONDS} s)`, value: published / elapsed, unit: 'changes/s', target: `${RATE}` },
      { name: 'presence changes applied in the page', value: applied, unit: 'changes', baseline: published, target: 'all' },
      { name: 'frames per second under load', value: loaded.frames / elapsed, unit: 'fps', baseline: idleFps, target: '>= 55' },
      { name: 'longest main-thread task (longtask)', value: loaded.longest, unit: 'ms', baseline: idle.longest || undefined, target: '<= 50' },
      { name: 'long tasks (> 50 ms) during the load', value: loaded.tasks, unit: 'tasks', target: '0' },
      { name: 'JS heap growth over the load (after GC)', value: (heapAfter - heapBefore) / 1024 / 1024, unit: 'MiB', target: 'bounded' },
      { name: `live view latency p50 (capture to decoded frame; ${livePath})`, value: pct(50), unit: 'ms', baseline: 1000 / 30, target: '< 100 added' },
      { name: `live view latency p95 (${livePath})`, value: pct(95), unit: 'ms', baseline: 1000 / 30, target: '< 100 added' },
      { name: `live view frames shown (${livePath})`, value: liveFps, unit: 'fps', baseline: 30 },
    ];
  } finally {
    await browser.close();
    await sim.close();
    await ts.stop();
    if (build.temporary) {
      fs.rmSync(build.dir, { recursive: true, force: true });
      delete process.env.CONSOLE_DIR;
    }
  }
}
