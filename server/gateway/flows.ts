import { BufferChurn, type Envelope } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Bus } from '../bus/bus.ts';
import { type FlowPayload, type FlowToConsole, type FlowToDevice, Subject } from '../bus/subjects.ts';
import type { ConsoleLink } from './console-link.ts';
import type { DeviceLink } from './device-link.ts';
import type { Peer } from './peer.ts';
import { youngCollection } from './young-collection.ts';

/** Flows one console may hold open at once (shell sessions and transfers); past it the oldest is forgotten (DOPS-1). */
export const MAX_FLOWS_PER_CONSOLE = 64;
/** Flows a node relays for consoles on other nodes; past it the oldest is forgotten. */
const MAX_REMOTE_FLOWS = 10_000;
/**
 * How long a console's flows outlive its socket (XFER-4): long enough for the engine's reconnect (backoff
 * up to 30 s) and a few failed attempts; short enough that an abandoned transfer does not hold its route.
 */
export const FLOW_GRACE_MS = 120_000;
/** Flows held for consoles that went away, at most; past it the oldest is forgotten. */
const MAX_DETACHED_FLOWS = 10_000;

/**
 * Where a flow's two ends are: the console here (with its device here or on another node), the device
 * here and the console on `node`, or a console of `session` whose socket dropped and may come back until
 * `until` (the device's traffic on the flow is dropped meanwhile; the transfer recovers it). A console's
 * route keeps the key of the command that opened it: the flow carries traffic only while the console
 * holds that key (a screenshot, say, stops when `device_capture` is taken away).
 */
export type ConsoleFlowRoute = { readonly flowId: string; readonly sn: string; readonly console: ConsoleLink; readonly node?: undefined; readonly permission: string };
export type FlowRoute =
  | ConsoleFlowRoute
  | { readonly flowId: string; readonly sn: string; readonly console?: undefined; readonly node: string }
  | { readonly flowId: string; readonly sn: string; readonly console?: undefined; readonly node?: undefined; readonly session: string; readonly until: number };

/**
 * Relayed chunk frames are buffers of their own (the socket read, ws joining a frame that spans two
 * reads) that die once written: a young collection every few MiB frees them before V8 answers their
 * external memory with full collections of the whole heap (buffer-churn.ts).
 */
const relayChurn = new BufferChurn(youngCollection());

function deliver(peer: Peer, p: FlowPayload): void {
  if ('frame' in p) {
    peer.sendRaw(p.frame);
    relayChurn.add(p.frame.length);
  } else peer.send(p.env);
}

/**
 * A flow's key on the device side: its device and flowId. Neither a serial nor a flowId may contain a
 * space (CONN-2, DOPS-1), so the key is unambiguous.
 */
const flowKey = (sn: string, flowId: string): string => `${sn} ${flowId}`;

/**
 * Which console and device a flow (shell session, file transfer, screenshot) joins. A console opens a
 * flow by sending a permitted command with a flowId to a device; from then on the device's messages and
 * chunks on that flow reach that console, and the console's acknowledgements and chunks reach that
 * device, across the cluster's bus when the two sockets are on different nodes. Nothing else may use it.
 *
 * flowIds are unique per console (DOPS-1), not across the gateway: two consoles may each have a flow
 * `sh-1`, to different devices. A device sees flowIds as the consoles chose them, so on one device a
 * flowId is one console's: routes are keyed by device and flowId, and each console's own flowIds name
 * its routes.
 */
export class FlowTable {
  /** Routes by device and flowId (flowKey). */
  readonly #routes = new Map<string, FlowRoute>();
  /** Each console's flows, flowId to device, oldest first (the one evicted past MAX_FLOWS_PER_CONSOLE). */
  readonly #byConsole = new Map<ConsoleLink, Map<string, string>>();
  /** Keys of flows relayed for consoles on other nodes, oldest first. */
  readonly #remote: string[] = [];
  /** Flows of consoles that went away, oldest first (`until` grows in this order); stale once taken back. */
  readonly #detached: { readonly key: string; readonly until: number }[] = [];
  readonly #devices: ReadonlyMap<string, DeviceLink>;
  readonly #bus: Bus;
  readonly #now: () => number;
  /** Hears each message a device sends a console here on a flow (shell recordings listen). */
  onDeviceEnv: ((sn: string, env: Envelope) => void) | undefined;

  constructor(devices: ReadonlyMap<string, DeviceLink>, bus: Bus, now: () => number = Date.now) {
    this.#devices = devices;
    this.#bus = bus;
    this.#now = now;
  }

  /**
   * Binds a flow to a console here and a device; false when this console's flowId already names a flow
   * to another device, or another console holds the flowId on this device. A flow left by a dropped
   * socket of the same session is taken back (XFER-4: the console asks again).
   */
  bind(flowId: string, sn: string, console: ConsoleLink, permission: string): boolean {
    this.#expire();
    const own = this.#byConsole.get(console) ?? new Map<string, string>();
    const key = flowKey(sn, flowId);
    const existing = this.#routes.get(key);
    if (own.has(flowId)) {
      // Reused only for the same device, under the same key: the flow is checked against the key it was opened with.
      return own.get(flowId) === sn && existing?.console === console && existing.permission === permission;
    }
    if (existing && !('session' in existing && existing.session === console.caller.session.tokenHash)) return false;
    this.#routes.set(key, { flowId, sn, console, permission });
    own.set(flowId, sn);
    if (own.size > MAX_FLOWS_PER_CONSOLE) {
      // The oldest is forgotten (DOPS-1): flows have no close, so this is how a long-lived console lets go.
      const [oldest, oldestSn] = own.entries().next().value as [string, string];
      own.delete(oldest);
      const oldKey = flowKey(oldestSn, oldest);
      if (this.#routes.get(oldKey)?.console === console) this.#routes.delete(oldKey);
    }
    this.#byConsole.set(console, own);
    return true;
  }

  /** Binds a flow of a device held here to a console on another node (a command forwarded over the bus). */
  bindRemote(flowId: string, sn: string, node: string): void {
    const key = flowKey(sn, flowId);
    const existing = this.#routes.get(key);
    if (existing?.console !== undefined) return;
    if (!existing) {
      this.#remote.push(key);
      if (this.#remote.length > MAX_REMOTE_FLOWS) this.#routes.delete(this.#remote.shift() as string);
    }
    this.#routes.set(key, { flowId, sn, node });
  }

  /** The route of a device's flow. */
  get(flowId: string, sn: string): FlowRoute | undefined {
    return this.#routes.get(flowKey(sn, flowId));
  }

  /** The route of a flow this console opened, by the console's flowId. */
  #own(flowId: string | undefined, console: ConsoleLink): ConsoleFlowRoute | undefined {
    const sn = flowId === undefined ? undefined : this.#byConsole.get(console)?.get(flowId);
    const route = sn === undefined || flowId === undefined ? undefined : this.#routes.get(flowKey(sn, flowId));
    return route?.console === console ? route : undefined;
  }

  /** True when `console` opened this flow. */
  ownedBy(flowId: string | undefined, console: ConsoleLink): boolean {
    return this.#own(flowId, console) !== undefined;
  }

  /**
   * The flow `console` opened, while `caller` (the console's current rights by default) still holds the
   * key it was opened with; undefined otherwise.
   */
  permitted(flowId: string | undefined, console: ConsoleLink, caller: Caller = console.caller): ConsoleFlowRoute | undefined {
    const route = this.#own(flowId, console);
    return route && caller.permissions.has(route.permission) ? route : undefined;
  }

  /** Console to device: false when the flow is not this console's, or its key is gone. */
  toDevice(flowId: string | undefined, from: ConsoleLink, p: FlowPayload): boolean {
    const route = this.permitted(flowId, from);
    if (!route) return false;
    const link = this.#devices.get(route.sn);
    if (link) deliver(link.peer, p);
    else if (this.#bus.shared) this.#bus.publish(Subject.flowToDevice(route.sn), { flowId: route.flowId, ...p });
    return true;
  }

  /** Device to console: false when the flow does not join this device to a console. */
  toConsole(flowId: string | undefined, sn: string, p: FlowPayload): boolean {
    const route = flowId === undefined ? undefined : this.#routes.get(flowKey(sn, flowId));
    if (!route) return false;
    if (route.console) {
      // Dropped once the console has lost the flow's key (its rights are re-read on every change).
      if (route.console.caller.permissions.has(route.permission)) {
        deliver(route.console.peer, p);
        if ('env' in p) this.onDeviceEnv?.(sn, p.env);
      }
    } else if (route.node !== undefined) {
      // The device goes with its traffic: the console's node looks the flow up by device (fromBusToConsole).
      if (this.#bus.shared) this.#bus.publish(Subject.flowToConsole(route.node), { flowId: route.flowId, sn, ...p });
    }
    // Detached: dropped. The device's transfer re-begins when the console asks again.
    return true;
  }

  /** Traffic another node relayed for a device held here. */
  fromBusToDevice(sn: string, m: FlowToDevice): void {
    const route = this.#routes.get(flowKey(sn, m.flowId));
    const link = this.#devices.get(sn);
    if (route?.node !== undefined && link) deliver(link.peer, m);
  }

  /**
   * Traffic another node relayed for a console here, from the device the flow joins only: the route is
   * looked up by the device the message names. The device's node may hold an old route for a flowId this
   * node has since given to another console and device: that device's traffic finds no route here.
   */
  fromBusToConsole(m: FlowToConsole): void {
    const route = this.#routes.get(flowKey(m.sn, m.flowId));
    if (route?.console && route.console.caller.permissions.has(route.permission)) {
      deliver(route.console.peer, m);
      if ('env' in m) this.onDeviceEnv?.(m.sn, m.env);
    }
  }

  /** Forgets the flows of `console` whose key it no longer holds (its rights narrowed). */
  dropUnpermitted(console: ConsoleLink): void {
    for (const [flowId, sn] of [...(this.#byConsole.get(console) ?? [])]) {
      const route = this.#routes.get(flowKey(sn, flowId));
      if (route?.console === console && !console.caller.permissions.has(route.permission)) this.#forgetRoute(console, flowId, sn);
    }
  }

  /**
   * A device moved to another organisation: flows to it of consoles that do not reach it there are
   * forgotten, so what the device sends on them (a shell it keeps across reconnects, say) reaches no one.
   */
  deviceMoved(sn: string, outside: (console: ConsoleLink) => boolean): void {
    for (const route of [...this.#routes.values()]) {
      if (route.sn === sn && route.console && outside(route.console)) this.#forgetRoute(route.console, route.flowId, sn);
    }
  }

  #forgetRoute(console: ConsoleLink, flowId: string, sn: string): void {
    this.#routes.delete(flowKey(sn, flowId));
    this.#byConsole.get(console)?.delete(flowId);
  }

  /** Detaches every flow of a console that went away; its session may take them back for FLOW_GRACE_MS. */
  dropConsole(console: ConsoleLink): void {
    this.#expire();
    const until = this.#now() + FLOW_GRACE_MS;
    const session = console.caller.session.tokenHash;
    for (const [flowId, sn] of this.#byConsole.get(console) ?? []) {
      const key = flowKey(sn, flowId);
      if (this.#routes.get(key)?.console !== console) continue;
      this.#routes.set(key, { flowId, sn, session, until });
      this.#detached.push({ key, until });
      if (this.#detached.length > MAX_DETACHED_FLOWS) this.#forgetDetached(this.#detached.shift());
    }
    this.#byConsole.delete(console);
  }

  /** Forgets detached flows whose grace has passed (lazily, on the next bind or drop: nothing to schedule). */
  #expire(): void {
    const now = this.#now();
    while (this.#detached.length > 0 && (this.#detached[0]?.until ?? Infinity) <= now) this.#forgetDetached(this.#detached.shift());
  }

  /** Forgets a detached flow unless it was taken back (or detached again later, with a later `until`). */
  #forgetDetached(entry: { readonly key: string; readonly until: number } | undefined): void {
    const route = entry && this.#routes.get(entry.key);
    if (entry && route && 'session' in route && route.until === entry.until) this.#routes.delete(entry.key);
  }

  get size(): number {
    return this.#routes.size;
  }
}
