import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { filter, firstValueFrom, lastValueFrom, type Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { Command, type Envelope, OnlineState, type ProtocolEngine, Result } from '../../protocol/index.ts';
import { startFleetAt } from '../support/fleet.ts';
import { startAdminConsole, startWorkerNode, type WorkerNode } from '../support/worker-node.ts';

// A node of two worker processes on the embedded database, started the way an operator starts it
// (server/main.ts with GATEWAY_WORKERS=2) in a child process. Device and console sockets land on
// whichever worker the OS hands them to, so the test uses enough devices that both workers hold some,
// commands every one of them, and picks the worker to kill from the node's own /metrics.
const DEVICES = 16;

interface WorkerFigures {
  readonly pid: number;
  readonly devices: number;
  readonly consoles: number;
}

/** Per-worker device and console counts from the node's aggregated /metrics, and the node's total. */
async function figures(url: string): Promise<{ total: number; workers: WorkerFigures[] }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const byPid = new Map<number, { devices: number; consoles: number }>();
  for (const m of text.matchAll(/^dcc_worker_(devices|consoles)_connected\{worker="\d+",pid="(\d+)"\} (\d+)$/gm)) {
    const pid = Number(m[2]);
    const entry = byPid.get(pid) ?? { devices: 0, consoles: 0 };
    entry[m[1] as 'devices' | 'consoles'] = Number(m[3]);
    byPid.set(pid, entry);
  }
  const total = Number(/^dcc_devices_connected (\d+)$/m.exec(text)?.[1] ?? NaN);
  return { total, workers: [...byPid].map(([pid, f]) => ({ pid, ...f })) };
}

/** Polls until `check` holds (the node is another process; there is no event to wait on). */
async function eventually<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('one node with two worker processes (GATEWAY_WORKERS=2, embedded database)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-workers-'));
  let node: WorkerNode | undefined;
  let url = '';
  let fleet: Fleet;
  let engine: ProtocolEngine;
  const presence: Envelope[] = [];
  let presenceSub: Subscription | undefined;

  const onlineInDb = () => {
    const db = new DatabaseSync(path.join(dataDir, 'control-center.sqlite'), { readOnly: true });
    try {
      return Number((db.prepare('select count(*) as n from devices where online_state = ?').get(OnlineState.Online) as { n: number }).n);
    } finally {
      db.close();
    }
  };
  const commandAll = () => Promise.all(fleet.devices.map(async (d) => (await lastValueFrom(engine.request(Command.BaseInfo, { sn: d.sn }))).reply.result));

  beforeAll(async () => {
    node = await startWorkerNode(dataDir);
    url = node.url;
    fleet = await startFleetAt(node, { count: DEVICES });

    engine = await startAdminConsole(url);
    presenceSub = engine.messages$.pipe(filter((e) => e.msgId === Command.DevicePresence)).subscribe((e) => presence.push(e));
    await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
  }, 30_000);

  afterAll(async () => {
    presenceSub?.unsubscribe();
    engine?.stop();
    fleet?.stop();
    await node?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds devices on both workers, and a console on one commands every device, wherever it is held', async () => {
    const { total, workers } = await eventually('a console counted', () => figures(url), (f) => f.workers.reduce((n, w) => n + w.consoles, 0) === 1);
    expect(total).toBe(DEVICES);
    expect(workers).toHaveLength(2);
    // Round-robin accept spreads sixteen devices over both workers.
    for (const w of workers) expect(w.devices).toBeGreaterThan(0);
    expect((await commandAll()).every((r) => r === Result.Success)).toBe(true);
  });

  it('shows a device going offline and back to a console on the other worker', async () => {
    const device = fleet.devices[0];
    if (!device) throw new Error('no device');
    const isPresence = (state: number) => (e: Envelope) => e.msgId === Command.DevicePresence && e.sn === device.sn && (e.data as { onlineState: number }).onlineState === state;
    const offline = firstValueFrom(engine.messages$.pipe(filter(isPresence(OnlineState.Offline))));
    device.stop();
    await offline;
    expect((await lastValueFrom(engine.request(Command.BaseInfo, { sn: device.sn }))).reply.result).toBe(Result.DeviceOffline);
    const online = firstValueFrom(engine.messages$.pipe(filter(isPresence(OnlineState.Online))));
    device.start();
    await online;
    await device.waitLoggedIn();
  });

  it("marks a killed worker's devices offline at once; they come back through the other worker or its replacement, once each", async () => {
    const before = await eventually('every device held', () => figures(url), (f) => f.total === DEVICES);
    // The worker without the console dies, so the console sees what happens to the devices it held.
    const victim = before.workers.find((w) => w.consoles === 0 && w.devices > 0);
    if (!victim) throw new Error(`no worker to kill: ${JSON.stringify(before)}`);
    presence.length = 0;
    process.kill(victim.pid, 'SIGKILL');

    const wentOffline = () => new Set(presence.filter((e) => (e.data as { onlineState: number }).onlineState === OnlineState.Offline).map((e) => e.sn));
    await eventually('offline presence for every device of the dead worker', async () => wentOffline().size, (n) => n === victim.devices);
    // Offline in the database too, before the devices' reconnect backoff (2 s at least) brings them back.
    expect(onlineInDb()).toBeLessThanOrEqual(DEVICES - victim.devices);

    await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
    const after = await eventually('the fleet held again by two workers', () => figures(url), (f) => f.total === DEVICES && f.workers.length === 2);
    expect(after.workers.map((w) => w.pid)).not.toContain(victim.pid);
    // No duplicate sessions: the workers' sockets add up to the fleet, and each device is online once.
    expect(after.workers.reduce((n, w) => n + w.devices, 0)).toBe(DEVICES);
    expect(onlineInDb()).toBe(DEVICES);
    const lastState = new Map(presence.map((e) => [e.sn, (e.data as { onlineState: number }).onlineState]));
    for (const sn of wentOffline()) expect(lastState.get(sn)).toBe(OnlineState.Online);
    expect(node?.output()).toMatch(/Worker \d \(pid \d+\) exited \(SIGKILL\); starting a new one/);
    // The replacement joined the shared port (one listed above); none of its starts failed.
    expect(node?.output()).not.toMatch(/EADDRINUSE|exited \(1\)/);
    expect((await commandAll()).every((r) => r === Result.Success)).toBe(true);
  });
});
