import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import type { Bus } from '../bus/bus.ts';
import { InProcessBus } from '../bus/in-process-bus.ts';
import { BUS_SUBJECTS, Subject } from '../bus/subjects.ts';
import type { DeviceHolders, ReleasedDevice } from '../devices/device-holders.ts';
import { ClusterMembership } from './cluster-membership.ts';

/** Holders that record what they were asked to release and release one device per dead node. */
function recordingHolders() {
  const calls: string[] = [];
  const holders = {
    release: async (nodes: readonly string[]) => {
      calls.push(`release ${nodes.join(',')}`);
      return nodes.map((n): ReleasedDevice => ({ sn: `${n}-dev`, orgId: 1 }));
    },
    releaseAllBut: async (alive: readonly string[], loggedInBefore: number) => {
      calls.push(`releaseAllBut ${[...alive].sort().join(',')} before ${loggedInBefore}`);
      return [];
    },
  } as unknown as DeviceHolders;
  return { holders, calls };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('cluster membership', () => {
  it('beats, hears the others, and releases the devices of a node silent for longer than the limit, once', async () => {
    const clock = new FakeClock(1_000);
    const bus = new InProcessBus(BUS_SUBJECTS);
    const { holders, calls } = recordingHolders();
    const released: string[] = [];
    const me = new ClusterMembership({ bus, nodeId: 'me', clock, holders, beatMs: 100, deadMs: 300, onReleased: (d) => released.push(...d.map((x) => x.sn)), log: { warn: () => undefined, info: () => undefined } });
    const beats: string[] = [];
    bus.subscribe(Subject.nodeAlive, (m) => beats.push(m.node));
    me.start();
    expect(beats).toEqual(['me']);
    // Two other nodes beat; one of them stops.
    bus.publish(Subject.nodeAlive, { node: 'a' });
    bus.publish(Subject.nodeAlive, { node: 'b' });
    for (let t = 0; t < 5; t++) {
      clock.advance(100);
      bus.publish(Subject.nodeAlive, { node: 'b' });
    }
    await flush();
    expect(me.alive().sort()).toEqual(['b', 'me']);
    expect(calls).toContain('release a');
    expect(released).toEqual(['a-dev']);
    // The first sweep, a dead-node window after start, spares logins made since this node started.
    expect(calls).toContain('releaseAllBut b,me before 1000');
    clock.advance(1_000);
    await flush();
    expect(calls.filter((c) => c.startsWith('release a'))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith('releaseAllBut'))).toHaveLength(1);
    await me.stop();
  });

  it('forgets a node that says goodbye, without releasing its devices', async () => {
    const clock = new FakeClock(0);
    const bus = new InProcessBus(BUS_SUBJECTS);
    const { holders, calls } = recordingHolders();
    const me = new ClusterMembership({ bus, nodeId: 'me', clock, holders, beatMs: 100, deadMs: 300, onReleased: () => undefined, log: { warn: () => undefined, info: () => undefined } });
    me.start();
    bus.publish(Subject.nodeAlive, { node: 'a' });
    bus.publish(Subject.nodeAlive, { node: 'a', leaving: true });
    clock.advance(1_000);
    await flush();
    expect(calls.filter((c) => c.startsWith('release '))).toEqual([]);
    const goodbyes: unknown[] = [];
    bus.subscribe(Subject.nodeAlive, (m) => goodbyes.push(m));
    await me.stop();
    expect(goodbyes).toEqual([{ node: 'me', leaving: true }]);
  });

  it('declares no node dead while its own bus is cut off, and gives every node a fresh window once it is back', async () => {
    const clock = new FakeClock(0);
    // A bus that can be cut off: while cut, this node hears nobody.
    const inner = new InProcessBus(BUS_SUBJECTS);
    let connected = true;
    const bus: Bus = {
      shared: true,
      get connected() {
        return connected;
      },
      publish: (subject, message) => inner.publish(subject, message),
      subscribe: (subject, handler) => inner.subscribe(subject, handler),
      close: () => inner.close(),
    };
    const { holders, calls } = recordingHolders();
    const me = new ClusterMembership({ bus, nodeId: 'me', clock, holders, beatMs: 100, deadMs: 300, onReleased: () => undefined, log: { warn: () => undefined, info: () => undefined } });
    me.start();
    bus.publish(Subject.nodeAlive, { node: 'a' });
    connected = false;
    clock.advance(1_000);
    await flush();
    expect(calls.filter((c) => c.startsWith('release '))).toEqual([]);
    // Back: 'a' gets a whole window from now before it counts as dead, and is released if still silent.
    connected = true;
    clock.advance(200);
    await flush();
    expect(calls.filter((c) => c.startsWith('release '))).toEqual([]);
    clock.advance(400);
    await flush();
    expect(calls.filter((c) => c.startsWith('release '))).toEqual(['release a']);
    await me.stop();
  });
});
