import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decoders as d, Invalid } from '../../protocol/index.ts';
import { batchingPort, type BusIpcMessage } from './ipc-bus.ts';
import { linkInMemory, memoryLink, MeshBus } from './mesh-bus.ts';
import { socketPort } from './socket-port.ts';
import { BUS_SUBJECTS, type BusSubject, Subject, type SubjectDecoders } from './subjects.ts';

/** A map of the test's own: the bus is generic over its subjects, and decodes by the map it is given. */
interface TestMap {
  readonly a: { readonly v: number };
  readonly flow: { readonly chunk: Uint8Array };
  readonly x: object;
}
const TEST_SUBJECTS: SubjectDecoders<TestMap> = {
  a: d.object<{ readonly v: number }>({ v: d.integer() }),
  flow: d.object<{ readonly chunk: Uint8Array }>({ chunk: (v) => (v instanceof Uint8Array ? v : Invalid) }),
  x: d.object<object>({}),
};
const on = <K extends keyof TestMap & string>(kind: K, name: string = kind): BusSubject<K> => ({ kind, name });
const turn = () => new Promise((r) => setImmediate(r));

/** `n` members linked in memory, every pair. */
async function mesh(n: number): Promise<MeshBus<TestMap>[]> {
  const members = Array.from({ length: n }, () => new MeshBus(TEST_SUBJECTS));
  await linkInMemory(members);
  return members;
}

describe('MeshBus (the bus of the processes of one node)', () => {
  it('delivers a message to every member subscribed to its subject, the publisher included (after its turn), and to no other', async () => {
    const buses = await mesh(3);
    const heard: string[][] = [[], [], []];
    buses[0]?.subscribe(on('a'), (m) => heard[0]?.push(String(m.v)));
    buses[1]?.subscribe(on('a'), (m) => heard[1]?.push(String(m.v)));
    buses[2]?.subscribe(on('a', 'b'), (m) => heard[2]?.push(String(m.v)));
    buses[0]?.publish(on('a'), { v: 1 });
    buses[2]?.publish(on('a'), { v: 2 });
    // The links here deliver at once; the publisher hears its own message at the end of its turn.
    expect(heard).toEqual([['2'], ['1', '2'], []]);
    await turn();
    expect(heard).toEqual([['2', '1'], ['1', '2'], []]);
  });

  it("gives the publisher's own handlers a copy, as a peer gets one", async () => {
    const [bus] = await mesh(1);
    const got: { v: number }[] = [];
    bus?.subscribe(on('a'), (m) => got.push(m));
    const message = { v: 1 };
    bus?.publish(on('a'), message);
    message.v = 2;
    await turn();
    expect(got).toEqual([{ v: 1 }]);
  });

  it('sends a message only over the links of members subscribed to its subject', async () => {
    const [a, b] = memoryLink();
    const sent: BusIpcMessage[] = [];
    const counting = { ...a, send: (m: BusIpcMessage) => (sent.push(m), a.send(m)) };
    const publisher = new MeshBus(TEST_SUBJECTS);
    const listener = new MeshBus(TEST_SUBJECTS);
    await Promise.all([publisher.join(counting), listener.join(b)]);
    publisher.publish(on('a'), { v: 1 });
    expect(sent.filter((m) => m.dcc === 'bus.deliver')).toEqual([]);
    listener.subscribe(on('a'), () => undefined);
    publisher.publish(on('a'), { v: 2 });
    expect(sent.filter((m) => m.dcc === 'bus.deliver')).toHaveLength(1);
  });

  it('tells its peers about a subject once, and forgets it with the last handler', async () => {
    const [worker, primary] = [new MeshBus(BUS_SUBJECTS), new MeshBus(BUS_SUBJECTS)];
    await linkInMemory([worker, primary]);
    const off1 = worker.subscribe(Subject.deviceCommand('SN1'), () => undefined);
    const off2 = worker.subscribe(Subject.deviceCommand('SN1'), () => undefined);
    expect(primary.subjectCount).toBe(1);
    off1();
    off1();
    expect(primary.subjectCount).toBe(1);
    off2();
    expect(primary.subjectCount).toBe(0);
  });

  it('tells a peer that publishes only some subjects (the primary) only of the subscriptions to those', async () => {
    const [toPrimary, toWorker] = memoryLink();
    const worker = new MeshBus(BUS_SUBJECTS);
    const primary = new MeshBus(BUS_SUBJECTS);
    worker.subscribe(Subject.deviceCommand('SN0'), () => undefined);
    const heard: string[] = [];
    worker.subscribe(Subject.presence, (m) => heard.push(m.sn));
    await Promise.all([worker.join(toPrimary, new Set([Subject.presence.name])), primary.join(toWorker)]);
    const off = worker.subscribe(Subject.deviceCommand('SN1'), () => undefined);
    off();
    expect(primary.subjectCount).toBe(1);
    primary.publish(Subject.presence, { node: 'p', sn: 'GONE', orgId: 1, online: false, time: 1 });
    expect(heard).toEqual(['GONE']);
  });

  it('tells a member linked later every subject it already listens to, before hello', async () => {
    const early = new MeshBus(TEST_SUBJECTS);
    const heard: number[] = [];
    early.subscribe(on('a'), (m) => heard.push(m.v));
    const late = new MeshBus(TEST_SUBJECTS);
    await linkInMemory([early, late]);
    expect(late.subjectCount).toBe(1);
    late.publish(on('a'), { v: 7 });
    expect(heard).toEqual([7]);
  });

  it('carries binary data as it is (flow chunks)', async () => {
    const buses = await mesh(2);
    const got: { readonly chunk: Uint8Array }[] = [];
    buses[1]?.subscribe(on('flow'), (m) => got.push(m));
    buses[0]?.publish(on('flow'), { chunk: new Uint8Array([1, 2, 3]) });
    expect(got[0]?.chunk).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('forgets a peer that left, with all its subscriptions', async () => {
    const [a, b] = [new MeshBus(TEST_SUBJECTS), new MeshBus(TEST_SUBJECTS)];
    const [ab, ba] = memoryLink();
    await Promise.all([a.join(ab), b.join(ba)]);
    b.subscribe(on('x'), () => undefined);
    b.subscribe(on('x', 'y'), () => undefined);
    expect(a.subjectCount).toBe(2);
    a.leave(ab);
    expect(a.subjectCount).toBe(0);
    expect(a.peerCount).toBe(0);
  });

  it("lets the node's primary, a member like the workers, hear and publish", async () => {
    const [primary, worker] = [new MeshBus(BUS_SUBJECTS), new MeshBus(BUS_SUBJECTS)];
    await linkInMemory([primary, worker]);
    const atPrimary: string[] = [];
    const atWorker: string[] = [];
    primary.subscribe(Subject.presence, (m) => atPrimary.push(m.sn));
    worker.subscribe(Subject.presence, (m) => atWorker.push(m.sn));
    const news = (sn: string) => ({ node: 'w1', sn, orgId: 1, online: true, time: 1 });
    worker.publish(Subject.presence, news('A'));
    primary.publish(Subject.presence, news('B'));
    await turn();
    // Each hears its own message at the end of the turn, the other's at once.
    expect(atPrimary).toEqual(['A', 'B']);
    expect(atWorker).toEqual(['B', 'A']);
  });

  it("decodes what another process sends by the subject's decoder, and drops what it refuses", async () => {
    const refused: string[] = [];
    const bus = new MeshBus(BUS_SUBJECTS, { warn: (_: object, msg: string) => void refused.push(msg) });
    const [foreign, ours] = memoryLink();
    void bus.join(ours);
    const heard: string[] = [];
    bus.subscribe(Subject.presence, (m) => heard.push(m.sn));
    // A process of another build (or a bug) sends presence without its organisation, then a good one.
    foreign.send({ dcc: 'bus.deliver', subject: Subject.presence.name, message: { node: 'w1', sn: 'BAD', online: true, time: 1 } });
    foreign.send({ dcc: 'bus.deliver', subject: Subject.presence.name, message: { node: 'w1', sn: 'GOOD', orgId: 3, online: true, time: 1, extra: 'dropped' } });
    expect(heard).toEqual(['GOOD']);
    expect(refused).toEqual(['malformed bus message dropped']);
  });

  it('links workers over Unix sockets: subscriptions, a command and its reply, binary data, and a worker that exits', async () => {
    const dir = os.tmpdir();
    const members = [new MeshBus(TEST_SUBJECTS), new MeshBus(TEST_SUBJECTS), new MeshBus(TEST_SUBJECTS)];
    const servers: net.Server[] = [];
    /** Each member's ends of its links, to end them as its exit would. */
    const sockets = members.map(() => [] as net.Socket[]);
    const link = (i: number, socket: net.Socket) => {
      sockets[i]?.push(socket);
      const bus = members[i] as MeshBus<TestMap>;
      const port = socketPort(socket);
      socket.on('close', () => bus.leave(port));
      return bus.join(port);
    };
    // Each listens; each later one connects to those before it, as worker-mesh.ts does.
    const paths: string[] = [];
    const hellos: Promise<void>[] = [];
    for (const i of members.keys()) {
      const p = path.join(dir, `dcc-mesh-test-${process.pid}-${i}.sock`);
      const server = net.createServer((socket) => void hellos.push(link(i, socket)));
      await new Promise<void>((r) => server.listen(p, r));
      servers.push(server);
      for (const earlier of paths) {
        const socket = net.createConnection(earlier);
        await new Promise((r) => socket.once('connect', r));
        hellos.push(link(i, socket));
      }
      paths.push(p);
    }
    await Promise.all(hellos);
    await expect.poll(() => members.map((m) => m.peerCount)).toEqual([2, 2, 2]);
    try {
      const replies: number[] = [];
      const chunks: Uint8Array[] = [];
      members[2]?.subscribe(on('a', 'device.SN1.cmd'), (m) => members[2]?.publish(on('a', 'node.w0.replies'), { v: m.v * 10 }));
      members[0]?.subscribe(on('a', 'node.w0.replies'), (m) => replies.push(m.v));
      members[1]?.subscribe(on('flow'), (m) => chunks.push(m.chunk));
      await expect.poll(() => members[0]?.subjectCount).toBe(2);
      for (let v = 1; v <= 100; v++) members[0]?.publish(on('a', 'device.SN1.cmd'), { v });
      members[0]?.publish(on('flow'), { chunk: new Uint8Array(200_000).fill(7) });
      await expect.poll(() => replies.length).toBe(100);
      expect(replies).toEqual(Array.from({ length: 100 }, (_, i) => (i + 1) * 10));
      await expect.poll(() => chunks.length).toBe(1);
      expect(chunks[0]?.length).toBe(200_000);
      expect(chunks[0]?.every((b) => b === 7)).toBe(true);
      // The worker holding the device exits: the others forget its subjects.
      for (const socket of sockets[2] ?? []) socket.destroy();
      await expect.poll(() => members[0]?.subjectCount).toBe(1);
      await expect.poll(() => members[0]?.peerCount).toBe(1);
    } finally {
      for (const socket of sockets.flat()) socket.destroy();
      for (const server of servers) server.close();
    }
  });

  it('sends the bus messages of one turn as one channel message, in order, and the other end unpacks them', async () => {
    const sent: unknown[] = [];
    const inbox = new Set<(m: unknown) => void>();
    const wire = {
      send: (m: unknown) => {
        sent.push(m);
        for (const h of inbox) h(structuredClone(m));
      },
      listen: (h: (m: unknown) => void) => {
        inbox.add(h);
        return () => inbox.delete(h);
      },
    };
    const worker = batchingPort(wire);
    const primary = batchingPort(wire);
    const heard: unknown[] = [];
    primary.listen((m) => heard.push(m));
    const subs: BusIpcMessage[] = ['A', 'B', 'C'].map((sn) => ({ dcc: 'bus.sub', subject: `device.${sn}.cmd` }));
    for (const m of subs) worker.send(m);
    expect(sent).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toHaveLength(1);
    expect(heard).toEqual(subs);
    // A lone message goes as it is; flush sends what is queued at once.
    worker.send({ dcc: 'bus.unsub', subject: 'device.A.cmd' });
    worker.flush();
    expect(sent[1]).toEqual({ dcc: 'bus.unsub', subject: 'device.A.cmd' });
    await new Promise((r) => setImmediate(r));
    expect(sent).toHaveLength(2);
  });

  it('delivers through batching ports as through plain ones, a turn later', async () => {
    const [a, b] = memoryLink();
    const worker = new MeshBus(TEST_SUBJECTS);
    const primary = new MeshBus(TEST_SUBJECTS);
    await Promise.all([worker.join(batchingPort(a)), primary.join(batchingPort(b)), turn(), turn()]);
    const heard: number[] = [];
    primary.subscribe(on('a'), (m) => heard.push(m.v));
    await turn();
    for (let v = 0; v < 5; v++) worker.publish(on('a'), { v });
    expect(heard).toEqual([]);
    await turn();
    expect(heard).toEqual([0, 1, 2, 3, 4]);
  });
});
