import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import { InProcessBus } from '../bus/in-process-bus.ts';
import { BUS_SUBJECTS, type FlowToConsole, Subject } from '../bus/subjects.ts';
import type { ConsoleLink } from './console-link.ts';
import type { DeviceLink } from './device-link.ts';
import { FLOW_GRACE_MS, FlowTable, MAX_FLOWS_PER_CONSOLE } from './flows.ts';

/** A console socket as the flow table sees it: its session and what reached it. */
function consoleOf(tokenHash: string) {
  const got: Envelope[] = [];
  const link = { caller: { session: { tokenHash }, permissions: new Set(['device_file']) }, peer: { send: (env: Envelope) => got.push(env), sendRaw: () => undefined } } as unknown as ConsoleLink;
  return { link, got };
}

const localBus: Bus = { shared: false, publish: () => undefined, subscribe: () => () => undefined, close: async () => undefined };

function table() {
  let now = 1_000;
  const flows = new FlowTable(new Map<string, DeviceLink>(), localBus, () => now);
  return { flows, advance: (ms: number) => (now += ms) };
}

const output: Envelope = { msgId: 65563, flowId: 'up-1', data: {} };

describe('XFER-4 flows outlive a console socket for its session', () => {
  it('XFER-4 a reconnected socket of the same session takes a dropped console\'s flow back', () => {
    const { flows, advance } = table();
    const before = consoleOf('session-a');
    expect(flows.bind('up-1', 'DEV1', before.link, 'device_file')).toBe(true);
    flows.dropConsole(before.link);
    // Detached: the device's traffic is dropped (but counted as the flow's), nothing reaches anyone.
    expect(flows.toConsole('up-1', 'DEV1', { env: output })).toBe(true);
    expect(before.got).toEqual([]);
    advance(FLOW_GRACE_MS - 1);
    const after = consoleOf('session-a');
    expect(flows.bind('up-1', 'DEV1', after.link, 'device_file')).toBe(true);
    expect(flows.ownedBy('up-1', after.link)).toBe(true);
    flows.toConsole('up-1', 'DEV1', { env: output });
    expect(after.got).toHaveLength(1);
  });

  it('XFER-4 another session, or another device, cannot take a detached flow', () => {
    const { flows } = table();
    const owner = consoleOf('session-a');
    flows.bind('up-1', 'DEV1', owner.link, 'device_file');
    flows.dropConsole(owner.link);
    expect(flows.bind('up-1', 'DEV1', consoleOf('session-b').link, 'device_file')).toBe(false);
    // The same flowId to another device is another flow (flowIds are per console, DOPS-1): the detached one stays detached.
    const elsewhere = consoleOf('session-a');
    expect(flows.bind('up-1', 'DEV2', elsewhere.link, 'device_file')).toBe(true);
    expect(flows.get('up-1', 'DEV1')).toMatchObject({ sn: 'DEV1', session: 'session-a' });
    flows.toConsole('up-1', 'DEV1', { env: output });
    expect(elsewhere.got).toEqual([]);
    // Nor can that console then take DEV1's under the flowId it uses for DEV2.
    expect(flows.bind('up-1', 'DEV1', elsewhere.link, 'device_file')).toBe(false);
    expect(flows.toDevice('up-1', consoleOf('session-a').link, { env: output })).toBe(false);
  });

  it('XFER-4 a detached flow is forgotten after the grace period, and anyone may use the id again', () => {
    const { flows, advance } = table();
    const owner = consoleOf('session-a');
    flows.bind('up-1', 'DEV1', owner.link, 'device_file');
    flows.dropConsole(owner.link);
    advance(FLOW_GRACE_MS);
    expect(flows.bind('other', 'DEV1', consoleOf('session-c').link, 'device_file')).toBe(true); // binding sweeps expired flows
    expect(flows.get('up-1', 'DEV1')).toBeUndefined();
    expect(flows.bind('up-1', 'DEV1', consoleOf('session-b').link, 'device_file')).toBe(true);
  });

  it('XFER-4 a flow taken back and dropped again gets a fresh grace period', () => {
    const { flows, advance } = table();
    const first = consoleOf('session-a');
    flows.bind('up-1', 'DEV1', first.link, 'device_file');
    flows.dropConsole(first.link);
    advance(FLOW_GRACE_MS / 2);
    const second = consoleOf('session-a');
    flows.bind('up-1', 'DEV1', second.link, 'device_file');
    flows.dropConsole(second.link);
    // The first drop's deadline passes; the second's has not.
    advance(FLOW_GRACE_MS / 2 + 1);
    expect(flows.bind('x', 'DEV1', consoleOf('session-z').link, 'device_file')).toBe(true);
    expect(flows.get('up-1', 'DEV1')).toMatchObject({ sn: 'DEV1', session: 'session-a' });
  });
});

describe('DOPS-1 flowIds are unique per console, not across the gateway', () => {
  it('DOPS-1 two consoles open the same flowId on two devices: two flows, each joining its own console and device', () => {
    const devices = new Map<string, DeviceLink>();
    const toDevice: Record<string, Envelope[]> = { DEV1: [], DEV2: [] };
    for (const sn of ['DEV1', 'DEV2']) devices.set(sn, { peer: { send: (env: Envelope) => void toDevice[sn]?.push(env), sendRaw: () => undefined } } as unknown as DeviceLink);
    const flows = new FlowTable(devices, localBus);
    const a = consoleOf('session-a');
    const b = consoleOf('session-b');
    expect(flows.bind('sh-1', 'DEV1', a.link, 'device_file')).toBe(true);
    expect(flows.bind('sh-1', 'DEV2', b.link, 'device_file')).toBe(true);
    flows.toConsole('sh-1', 'DEV1', { env: { ...output, data: 'one' } });
    flows.toConsole('sh-1', 'DEV2', { env: { ...output, data: 'two' } });
    expect(a.got.map((e) => e.data)).toEqual(['one']);
    expect(b.got.map((e) => e.data)).toEqual(['two']);
    expect(flows.toDevice('sh-1', a.link, { env: { ...output, data: 'to one' } })).toBe(true);
    expect(flows.toDevice('sh-1', b.link, { env: { ...output, data: 'to two' } })).toBe(true);
    expect([toDevice.DEV1?.map((e) => e.data), toDevice.DEV2?.map((e) => e.data)]).toEqual([['to one'], ['to two']]);
    // On one device a flowId is one console's: the device cannot tell two consoles' flows apart.
    expect(flows.bind('sh-1', 'DEV1', b.link, 'device_file')).toBe(false);
    // And one console's flowId names one flow.
    expect(flows.bind('sh-1', 'DEV2', a.link, 'device_file')).toBe(false);
  });

  it(`DOPS-1 a console's ${MAX_FLOWS_PER_CONSOLE + 1}th flow forgets its oldest; another console's flows are untouched`, () => {
    const { flows } = table();
    const busy = consoleOf('session-a');
    const other = consoleOf('session-b');
    flows.bind('f-0', 'DEV1', other.link, 'device_file');
    for (let i = 0; i <= MAX_FLOWS_PER_CONSOLE; i++) expect(flows.bind(`f-${i}`, 'DEV2', busy.link, 'device_file')).toBe(true);
    expect(flows.ownedBy('f-0', busy.link)).toBe(false);
    expect(flows.get('f-0', 'DEV2')).toBeUndefined();
    expect(flows.ownedBy('f-1', busy.link)).toBe(true);
    expect(flows.ownedBy('f-0', other.link)).toBe(true);
  });
});

describe('only the device a flow joins may feed it', () => {
  it('a device cannot feed another device\'s flow on its own node', () => {
    const { flows } = table();
    const owner = consoleOf('session-a');
    flows.bind('sh-1', 'DEV1', owner.link, 'device_file');
    expect(flows.toConsole('sh-1', 'INTRUDER', { env: output })).toBe(false);
    expect(owner.got).toEqual([]);
    expect(flows.toConsole('sh-1', 'DEV1', { env: output })).toBe(true);
    expect(owner.got).toHaveLength(1);
  });

  it('across nodes: a stale route on the device\'s node does not reach the console that now holds the flow id', () => {
    // Node B once relayed flow sh-1 of device OLD (held there) to a console on node A; that console is
    // gone and node A has since given sh-1 to another console, for device NEW.
    const inner = new InProcessBus(BUS_SUBJECTS);
    const published: FlowToConsole[] = [];
    inner.subscribe(Subject.flowToConsole('A'), (m) => published.push(m));
    const bus: Bus = { shared: true, publish: (subject, message) => inner.publish(subject, message), subscribe: () => () => undefined, close: async () => undefined };
    const nodeB = new FlowTable(new Map<string, DeviceLink>(), bus);
    nodeB.bindRemote('sh-1', 'OLD', 'A');
    const nodeA = new FlowTable(new Map<string, DeviceLink>(), bus);
    const holder = consoleOf('session-new');
    nodeA.bind('sh-1', 'NEW', holder.link, 'device_file');

    // OLD's output on sh-1 travels to node A, which drops it: the flow there joins NEW.
    expect(nodeB.toConsole('sh-1', 'OLD', { env: output })).toBe(true);
    expect(published).toHaveLength(1);
    expect(published[0]?.sn).toBe('OLD');
    for (const m of published) nodeA.fromBusToConsole(m);
    expect(holder.got).toEqual([]);

    // NEW's own output, relayed by its node, arrives.
    nodeA.fromBusToConsole({ flowId: 'sh-1', sn: 'NEW', env: output });
    expect(holder.got).toHaveLength(1);
  });
});
