import { describe, expect, it } from 'vitest';
import { decoders as d, Invalid } from '../../protocol/index.ts';
import { batchingPort, BusRelay, type BusIpcMessage, IpcBus, type IpcPort } from './ipc-bus.ts';
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

/** An in-memory IPC channel: both ends deliver synchronously, as a test wants, and count what passes. */
function channel(): { worker: IpcPort; primary: IpcPort; toPrimary: BusIpcMessage[] } {
  const toWorker = new Set<(m: unknown) => void>();
  const toPrimarySide = new Set<(m: unknown) => void>();
  const toPrimary: BusIpcMessage[] = [];
  const end = (out: Set<(m: unknown) => void>, inbox: Set<(m: unknown) => void>, log?: BusIpcMessage[]): IpcPort => ({
    send: (m) => {
      log?.push(m);
      // Advanced serialization copies the message; so does this.
      for (const h of out) h(structuredClone(m));
    },
    listen: (h) => {
      inbox.add(h);
      return () => inbox.delete(h);
    },
  });
  return { worker: end(toPrimarySide, toWorker, toPrimary), primary: end(toWorker, toPrimarySide), toPrimary };
}

function node(workers: number) {
  const relay = new BusRelay(TEST_SUBJECTS);
  const channels = Array.from({ length: workers }, () => channel());
  for (const c of channels) relay.join(c.primary);
  return { relay, channels, buses: channels.map((c) => new IpcBus(c.worker, TEST_SUBJECTS)) };
}

/** A node whose buses carry the server's own subjects. */
function serverNode(workers: number) {
  const refused: string[] = [];
  const log = { warn: (_: object, msg: string) => void refused.push(msg) };
  const relay = new BusRelay(BUS_SUBJECTS, log);
  const channels = Array.from({ length: workers }, () => channel());
  for (const c of channels) relay.join(c.primary);
  return { relay, channels, refused, buses: channels.map((c) => new IpcBus(c.worker, BUS_SUBJECTS, log)) };
}

describe('IpcBus and BusRelay (the bus of one node with worker processes)', () => {
  it('delivers a message to every worker subscribed to its subject, the publisher included, and to no other', () => {
    const { buses } = node(3);
    const heard: string[][] = [[], [], []];
    buses[0]?.subscribe(on('a'), (m) => heard[0]?.push(String(m.v)));
    buses[1]?.subscribe(on('a'), (m) => heard[1]?.push(String(m.v)));
    buses[2]?.subscribe(on('a', 'b'), (m) => heard[2]?.push(String(m.v)));
    buses[0]?.publish(on('a'), { v: 1 });
    buses[2]?.publish(on('a'), { v: 2 });
    expect(heard).toEqual([['1', '2'], ['1', '2'], []]);
  });

  it('tells the primary about a subject once per worker, and forgets it with the last handler', () => {
    const { relay, channels, buses } = serverNode(1);
    const bus = buses[0];
    if (!bus) throw new Error('no bus');
    const off1 = bus.subscribe(Subject.deviceCommand('SN1'), () => undefined);
    const off2 = bus.subscribe(Subject.deviceCommand('SN1'), () => undefined);
    expect(channels[0]?.toPrimary.filter((m) => m.dcc === 'bus.sub')).toHaveLength(1);
    off1();
    off1();
    expect(relay.subjectCount).toBe(1);
    off2();
    expect(relay.subjectCount).toBe(0);
    expect(channels[0]?.toPrimary.filter((m) => m.dcc === 'bus.unsub')).toHaveLength(1);
  });

  it('carries binary data as it is (flow chunks)', () => {
    const { buses } = node(2);
    const got: { readonly chunk: Uint8Array }[] = [];
    buses[1]?.subscribe(on('flow'), (m) => got.push(m));
    buses[0]?.publish(on('flow'), { chunk: new Uint8Array([1, 2, 3]) });
    expect(got[0]?.chunk).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('drops a worker that left with all its subscriptions', () => {
    const { relay, channels, buses } = node(2);
    const heard: number[] = [];
    buses[0]?.subscribe(on('x'), () => heard.push(0));
    buses[0]?.subscribe(on('x', 'y'), () => heard.push(0));
    buses[1]?.subscribe(on('x'), () => heard.push(1));
    const gone = channels[0];
    if (!gone) throw new Error('no channel');
    relay.leave(gone.primary);
    expect(relay.subjectCount).toBe(1);
    buses[1]?.publish(on('x'), {});
    expect(heard).toEqual([1]);
  });

  it("lets the primary hear and publish on the node's bus", () => {
    const { relay, buses, refused } = serverNode(1);
    const atPrimary: string[] = [];
    const atWorker: string[] = [];
    relay.bus.subscribe(Subject.presence, (m) => atPrimary.push(m.sn));
    buses[0]?.subscribe(Subject.presence, (m) => atWorker.push(m.sn));
    const news = (sn: string) => ({ node: 'w1', sn, orgId: 1, online: true, time: 1 });
    buses[0]?.publish(Subject.presence, news('A'));
    relay.bus.publish(Subject.presence, news('B'));
    expect(atPrimary).toEqual(['A', 'B']);
    expect(atWorker).toEqual(['A', 'B']);
    expect(refused).toEqual([]);
  });

  it('decodes what another process sends by the subject\'s decoder, and drops what it refuses', () => {
    const { channels, buses, refused } = serverNode(2);
    const heard: string[] = [];
    buses[1]?.subscribe(Subject.presence, (m) => heard.push(m.sn));
    // A process of another build (or a bug) publishes presence without its organisation, then a good one.
    channels[0]?.worker.send({ dcc: 'bus.pub', subject: Subject.presence.name, message: { node: 'w1', sn: 'BAD', online: true, time: 1 } });
    channels[0]?.worker.send({ dcc: 'bus.pub', subject: Subject.presence.name, message: { node: 'w1', sn: 'GOOD', orgId: 3, online: true, time: 1, extra: 'dropped' } });
    expect(heard).toEqual(['GOOD']);
    expect(refused).toEqual(['malformed bus message dropped']);
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
    const relay = new BusRelay(TEST_SUBJECTS);
    const c = channel();
    relay.join(batchingPort(c.primary));
    const bus = new IpcBus(batchingPort(c.worker), TEST_SUBJECTS);
    const heard: number[] = [];
    bus.subscribe(on('a'), (m) => heard.push(m.v));
    for (let v = 0; v < 5; v++) bus.publish(on('a'), { v });
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual([0, 1, 2, 3, 4]);
    expect(c.toPrimary).toHaveLength(1);
  });
});
