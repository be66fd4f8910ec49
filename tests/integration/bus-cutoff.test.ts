import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { OnlineState } from '../../protocol/index.ts';
import { NatsBus } from '../../server/bus/nats-bus.ts';
import { type RunningServer } from '../../server/server.ts';
import { clusterServicesAvailable, startClusterNode } from '../support/cluster.ts';
import { freshPgSchema } from '../support/databases.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { CuttableLink, freePort, killNats, NATS_SERVER, startNats } from '../support/nats-server.ts';

/**
 * One node of two loses its link to NATS for longer than the dead-node window while the other keeps it.
 * The cut-off node must not take the other for dead (it simply hears nobody), and once its link is back
 * it must say again that it holds its devices, which the other node marked offline meanwhile.
 */
const available = fs.existsSync(NATS_SERVER) && (await clusterServicesAvailable('bus cut-off test'));

describe.skipIf(!available)('one node cut off from the bus', () => {
  let nats: ChildProcess | undefined;
  let link: CuttableLink;
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let dropSchema: (() => Promise<void>) | undefined;
  const devices: DeviceSession[] = [];
  const dirs: string[] = [];
  const SN_A = `CUT-A-${process.pid}`;
  const SN_B = `CUT-B-${process.pid}`;

  // Beats every 200 ms: a node silent for 600 ms is dead.
  const start = (natsUrl: string, pgSchema: string) => startClusterNode(pgSchema, dirs, { env: { NATS_URL: natsUrl, CLUSTER_BEAT_MS: '200' } });

  const onlineState = async (sn: string) =>
    (await nodeB.db.selectFrom('devices').select(['online_state', 'node_id']).where('sn', '=', sn).executeTakeFirst()) ?? { online_state: -1, node_id: null };

  beforeAll(async () => {
    const natsPort = await freePort();
    nats = await startNats(natsPort);
    link = await CuttableLink.open(natsPort);
    const schema = await freshPgSchema();
    dropSchema = schema.drop;
    nodeA = await start(link.url, schema.schema);
    nodeB = await start(`nats://127.0.0.1:${natsPort}`, schema.schema);
    await startVirtualDevices({ server: nodeA }, [SN_A], devices);
    await startVirtualDevices({ server: nodeB }, [SN_B], devices);
  });

  afterAll(async () => {
    for (const d of devices) d.stop();
    await link?.restore().catch(() => undefined);
    await nodeA?.close();
    await nodeB?.close();
    await dropSchema?.();
    if (nats) await killNats(nats);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the cut-off node releases nobody, and reclaims its own devices once its link is back', async () => {
    const busA = nodeA.gateway.bus;
    if (!(busA instanceof NatsBus)) throw new Error('node A is not on NATS');
    const before = await onlineState(SN_A);
    expect(before.online_state).toBe(OnlineState.Online);
    expect(before.node_id).not.toBeNull();
    expect((await onlineState(SN_B)).online_state).toBe(OnlineState.Online);

    await link.cut();
    await vi.waitFor(() => expect(busA.connected).toBe(false), { timeout: 10_000 });
    // Node B, still on the bus, hears node A no more and marks its device offline: right, from where it stands.
    await vi.waitFor(async () => expect((await onlineState(SN_A)).online_state).toBe(OnlineState.Offline), { timeout: 10_000 });
    // Node A has heard nobody for as long, and more: it must not have marked node B's device offline. Its
    // beats run every 200 ms, so three more dead-node windows give it every chance to do it wrongly.
    await new Promise((r) => setTimeout(r, 1_800));
    expect((await onlineState(SN_B)).online_state).toBe(OnlineState.Online);

    await link.restore();
    await vi.waitFor(() => expect(busA.connected).toBe(true), { timeout: 15_000 });
    // Back on the bus, node A says it holds its device again.
    await vi.waitFor(async () => expect(await onlineState(SN_A)).toEqual(before), { timeout: 10_000 });
    expect((await onlineState(SN_B)).online_state).toBe(OnlineState.Online);
  });
});
