import fs from 'node:fs';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import type { DeviceCommandReply } from '../../protocol/api/device-ops.ts';
import { Command, decodeRequest, systemClock } from '../../protocol/index.ts';
import type { RunningServer } from '../../server/server.ts';
import { clusterServicesAvailable, startClusterNode } from '../support/cluster.ts';
import { client, createAccount, createRole } from '../support/console-api.ts';
import { freshPgSchema } from '../support/databases.ts';
import { loginAs, loginAsAdmin, openConsole, type TestServer } from '../support/server.ts';

const available = await clusterServicesAvailable('four-eyes cluster test');

// Issue 23: a decision taken on one node reaches the requester's console on another (bus subject
// approval.decided, console event 196613).
describe.skipIf(!available)('four-eyes decisions on two nodes sharing PostgreSQL and NATS', () => {
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let dropSchema: () => Promise<void>;
  const dirs: string[] = [];
  let device: DeviceSession | undefined;

  beforeAll(async () => {
    const schema = await freshPgSchema();
    dropSchema = schema.drop;
    nodeA = await startClusterNode(schema.schema, dirs);
    nodeB = await startClusterNode(schema.schema, dirs);
  });

  afterAll(async () => {
    device?.stop();
    await nodeA?.close();
    await nodeB?.close();
    await dropSchema?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('the requester on node B hears that the approver on node A rejected its request', { timeout: 30_000 }, async () => {
    device = createVirtualDevice({
      gatewayUrl: nodeA.deviceSocketUrl,
      sn: 'FEC0',
      enrollKey: nodeA.seeded.enrollKey,
      info: { model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 2 },
      transport: wsTransport(),
      clock: systemClock,
      rebootDownMs: 1_000,
    });
    device.start();
    await device.waitLoggedIn();

    const a = { server: nodeA } as TestServer;
    const b = { server: nodeB } as TestServer;
    const login = await loginAsAdmin(b);
    const admin = client(b, login.token);
    const role = await createRole(admin, 'fec-approver', ['device_list', 'approve_dangerous']);
    await createAccount(admin, 'fecapprover', 'Approver_pass_1', role);
    const approver = client(a, (await loginAs(a, 'fecapprover', 'Approver_pass_1')).token);

    const requesterConsole = await openConsole(nodeB.url, login);
    try {
      const heard = firstValueFrom(requesterConsole.messages$.pipe(filter((e) => e.msgId === Command.ApprovalDecided)));
      const reply = await admin.ok<DeviceCommandReply>('POST', '/device-ops/command', { sn: 'FEC0', msgId: Command.ClearData });
      const id = reply.approval?.id ?? 0;
      expect(id).toBeGreaterThan(0);
      await approver.ok('POST', `/approval/${id}/reject`, { reason: 'not on this node' });
      const event = decodeRequest(Command.ApprovalDecided, (await heard).data)?.data;
      expect(event).toEqual({ id, state: 'rejected', kind: 'command', msgId: Command.ClearData, targetCount: 1, decidedBy: 'fecapprover', reason: 'not on this node' });
    } finally {
      requesterConsole.stop();
    }
  });
});
