import type { Envelope } from '../../protocol/index.ts';
import type { Bus, BusMessage } from '../bus/bus.ts';
import type { ConsoleLink } from './console-endpoint.ts';
import type { DeviceLink } from './device-endpoint.ts';
import type { Peer } from './peer.ts';

/** Flows one console may hold open at once (shell sessions and transfers); past it the oldest is forgotten. */
export const MAX_FLOWS_PER_CONSOLE = 64;
/** Flows a node relays for consoles on other nodes; past it the oldest is forgotten. */
const MAX_REMOTE_FLOWS = 10_000;

/** Bus subjects of flow traffic between nodes (the bus adds its cluster prefix). */
export const FlowSubject = {
  /** Console-to-device traffic, heard by the node holding the device. */
  toDevice: (sn: string) => `device.${sn}.flow`,
  /** Device-to-console traffic, heard by the node holding the console. */
  toConsole: (nodeId: string) => `node.${nodeId}.flow`,
} as const;

/** What travels on a flow: a binary chunk frame (relayed unchanged) or an envelope. */
export type FlowPayload = { readonly frame: Uint8Array } | { readonly env: Envelope };

/** Where a flow's two ends are: the console here (with its device here or on another node), or the device here and the console on `node`. */
export type FlowRoute =
  | { readonly flowId: string; readonly sn: string; readonly console: ConsoleLink; readonly node?: undefined }
  | { readonly flowId: string; readonly sn: string; readonly console?: undefined; readonly node: string };

function deliver(peer: Peer, p: FlowPayload): void {
  if ('frame' in p) peer.sendRaw(p.frame);
  else peer.send(p.env);
}

/**
 * Which console and device a flow (shell session, file transfer, screenshot) joins. A console opens a
 * flow by sending a permitted command with a flowId to a device; from then on the device's messages and
 * chunks on that flow reach that console, and the console's acknowledgements and chunks reach that
 * device, across the cluster's bus when the two sockets are on different nodes. Nothing else may use it.
 */
export class FlowTable {
  readonly #routes = new Map<string, FlowRoute>();
  readonly #byConsole = new Map<ConsoleLink, string[]>();
  readonly #remote: string[] = [];
  readonly #devices: ReadonlyMap<string, DeviceLink>;
  readonly #bus: Bus;

  constructor(devices: ReadonlyMap<string, DeviceLink>, bus: Bus) {
    this.#devices = devices;
    this.#bus = bus;
  }

  /** Binds a flow to a console here and a device; false when another console or device already holds it. */
  bind(flowId: string, sn: string, console: ConsoleLink): boolean {
    const existing = this.#routes.get(flowId);
    if (existing) return existing.console === console && existing.sn === sn;
    this.#routes.set(flowId, { flowId, sn, console });
    const list = this.#byConsole.get(console) ?? [];
    list.push(flowId);
    if (list.length > MAX_FLOWS_PER_CONSOLE) this.#routes.delete(list.shift() as string);
    this.#byConsole.set(console, list);
    return true;
  }

  /** Binds a flow of a device held here to a console on another node (a command forwarded over the bus). */
  bindRemote(flowId: string, sn: string, node: string): void {
    const existing = this.#routes.get(flowId);
    if (existing && (existing.console !== undefined || existing.sn !== sn)) return;
    if (!existing) {
      this.#remote.push(flowId);
      if (this.#remote.length > MAX_REMOTE_FLOWS) this.#routes.delete(this.#remote.shift() as string);
    }
    this.#routes.set(flowId, { flowId, sn, node });
  }

  get(flowId: string): FlowRoute | undefined {
    return this.#routes.get(flowId);
  }

  /** True when `console` opened this flow. */
  ownedBy(flowId: string | undefined, console: ConsoleLink): boolean {
    return flowId !== undefined && this.#routes.get(flowId)?.console === console;
  }

  /** Console to device: false when the flow is not this console's. */
  toDevice(flowId: string | undefined, from: ConsoleLink, p: FlowPayload): boolean {
    const route = flowId === undefined ? undefined : this.#routes.get(flowId);
    if (!route || route.console !== from) return false;
    const link = this.#devices.get(route.sn);
    if (link) deliver(link.peer, p);
    else if (this.#bus.shared) this.#bus.publish(FlowSubject.toDevice(route.sn), { flowId, ...p });
    return true;
  }

  /** Device to console: false when the flow does not join this device to a console. */
  toConsole(flowId: string | undefined, sn: string, p: FlowPayload): boolean {
    const route = flowId === undefined ? undefined : this.#routes.get(flowId);
    if (!route || route.sn !== sn) return false;
    if (route.console) deliver(route.console.peer, p);
    else if (this.#bus.shared) this.#bus.publish(FlowSubject.toConsole(route.node), { flowId, ...p });
    return true;
  }

  /** Traffic another node relayed for a device held here. */
  fromBusToDevice(sn: string, m: BusMessage): void {
    const route = this.#routes.get(String(m.flowId));
    const link = this.#devices.get(sn);
    if (!route || route.sn !== sn || route.node === undefined || !link) return;
    const p = payloadOf(m);
    if (p) deliver(link.peer, p);
  }

  /** Traffic another node relayed for a console here. */
  fromBusToConsole(m: BusMessage): void {
    const route = this.#routes.get(String(m.flowId));
    const p = payloadOf(m);
    if (route?.console && p) deliver(route.console.peer, p);
  }

  /** Forgets every flow of a console that went away. */
  dropConsole(console: ConsoleLink): void {
    for (const flowId of this.#byConsole.get(console) ?? []) this.#routes.delete(flowId);
    this.#byConsole.delete(console);
  }

  get size(): number {
    return this.#routes.size;
  }
}

function payloadOf(m: BusMessage): FlowPayload | undefined {
  if (m.frame instanceof Uint8Array) return { frame: m.frame };
  if (typeof m.env === 'object' && m.env !== null && typeof (m.env as Envelope).msgId === 'number') return { env: m.env as Envelope };
  return undefined;
}
