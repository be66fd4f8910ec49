import { describe, expect, it } from 'vitest';
import { type BusMessage, Subject } from './bus.ts';
import { BusRelay, type BusIpcMessage, IpcBus, type IpcPort } from './ipc-bus.ts';

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
  const relay = new BusRelay();
  const channels = Array.from({ length: workers }, () => channel());
  for (const c of channels) relay.join(c.primary);
  return { relay, channels, buses: channels.map((c) => new IpcBus(c.worker)) };
}

describe('IpcBus and BusRelay (the bus of one node with worker processes)', () => {
  it('delivers a message to every worker subscribed to its subject, the publisher included, and to no other', () => {
    const { buses } = node(3);
    const heard: string[][] = [[], [], []];
    buses[0]?.subscribe('a', (m) => heard[0]?.push(String(m.v)));
    buses[1]?.subscribe('a', (m) => heard[1]?.push(String(m.v)));
    buses[2]?.subscribe('b', (m) => heard[2]?.push(String(m.v)));
    buses[0]?.publish('a', { v: 1 });
    buses[2]?.publish('a', { v: 2 });
    expect(heard).toEqual([['1', '2'], ['1', '2'], []]);
  });

  it('tells the primary about a subject once per worker, and forgets it with the last handler', () => {
    const { relay, channels, buses } = node(1);
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
    const got: BusMessage[] = [];
    buses[1]?.subscribe('flow', (m) => got.push(m));
    buses[0]?.publish('flow', { chunk: new Uint8Array([1, 2, 3]) });
    expect(got[0]?.chunk).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('drops a worker that left with all its subscriptions', () => {
    const { relay, channels, buses } = node(2);
    const heard: number[] = [];
    buses[0]?.subscribe('x', () => heard.push(0));
    buses[0]?.subscribe('y', () => heard.push(0));
    buses[1]?.subscribe('x', () => heard.push(1));
    const gone = channels[0];
    if (!gone) throw new Error('no channel');
    relay.leave(gone.primary);
    expect(relay.subjectCount).toBe(1);
    buses[1]?.publish('x', {});
    expect(heard).toEqual([1]);
  });

  it("lets the primary hear and publish on the node's bus", () => {
    const { relay, buses } = node(1);
    const atPrimary: unknown[] = [];
    const atWorker: unknown[] = [];
    relay.bus.subscribe(Subject.presence, (m) => atPrimary.push(m.sn));
    buses[0]?.subscribe(Subject.presence, (m) => atWorker.push(m.sn));
    buses[0]?.publish(Subject.presence, { sn: 'A' });
    relay.bus.publish(Subject.presence, { sn: 'B' });
    expect(atPrimary).toEqual(['A', 'B']);
    expect(atWorker).toEqual(['A', 'B']);
  });
});
