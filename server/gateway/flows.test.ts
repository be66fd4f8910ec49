import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import type { ConsoleLink } from './console-endpoint.ts';
import type { DeviceLink } from './device-endpoint.ts';
import { FLOW_GRACE_MS, FlowTable } from './flows.ts';

/** A console socket as the flow table sees it: its session and what reached it. */
function consoleOf(tokenHash: string) {
  const got: Envelope[] = [];
  const link = { caller: { session: { tokenHash } }, peer: { send: (env: Envelope) => got.push(env), sendRaw: () => undefined } } as unknown as ConsoleLink;
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
    expect(flows.bind('up-1', 'DEV1', before.link)).toBe(true);
    flows.dropConsole(before.link);
    // Detached: the device's traffic is dropped (but counted as the flow's), nothing reaches anyone.
    expect(flows.toConsole('up-1', 'DEV1', { env: output })).toBe(true);
    expect(before.got).toEqual([]);
    advance(FLOW_GRACE_MS - 1);
    const after = consoleOf('session-a');
    expect(flows.bind('up-1', 'DEV1', after.link)).toBe(true);
    expect(flows.ownedBy('up-1', after.link)).toBe(true);
    flows.toConsole('up-1', 'DEV1', { env: output });
    expect(after.got).toHaveLength(1);
  });

  it('XFER-4 another session, or another device, cannot take a detached flow', () => {
    const { flows } = table();
    const owner = consoleOf('session-a');
    flows.bind('up-1', 'DEV1', owner.link);
    flows.dropConsole(owner.link);
    expect(flows.bind('up-1', 'DEV1', consoleOf('session-b').link)).toBe(false);
    expect(flows.bind('up-1', 'DEV2', consoleOf('session-a').link)).toBe(false);
    expect(flows.toDevice('up-1', consoleOf('session-a').link, { env: output })).toBe(false);
  });

  it('XFER-4 a detached flow is forgotten after the grace period, and anyone may use the id again', () => {
    const { flows, advance } = table();
    const owner = consoleOf('session-a');
    flows.bind('up-1', 'DEV1', owner.link);
    flows.dropConsole(owner.link);
    advance(FLOW_GRACE_MS);
    expect(flows.bind('other', 'DEV1', consoleOf('session-c').link)).toBe(true); // binding sweeps expired flows
    expect(flows.get('up-1')).toBeUndefined();
    expect(flows.bind('up-1', 'DEV1', consoleOf('session-b').link)).toBe(true);
  });

  it('XFER-4 a flow taken back and dropped again gets a fresh grace period', () => {
    const { flows, advance } = table();
    const first = consoleOf('session-a');
    flows.bind('up-1', 'DEV1', first.link);
    flows.dropConsole(first.link);
    advance(FLOW_GRACE_MS / 2);
    const second = consoleOf('session-a');
    flows.bind('up-1', 'DEV1', second.link);
    flows.dropConsole(second.link);
    // The first drop's deadline passes; the second's has not.
    advance(FLOW_GRACE_MS / 2 + 1);
    expect(flows.bind('x', 'DEV1', consoleOf('session-z').link)).toBe(true);
    expect(flows.get('up-1')).toMatchObject({ sn: 'DEV1', session: 'session-a' });
  });
});
