import type { Clock, TimerHandle } from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import { Subject } from '../bus/subjects.ts';
import { NODE_BEAT_MS, NODE_DEAD_MS, NodeLiveness } from '../cluster/node-liveness.ts';
import type { DeviceHolders, ReleasedDevice } from '../devices/device-holders.ts';

export interface ClusterMembershipDeps {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly clock: Clock;
  readonly holders: DeviceHolders;
  /** Devices this node marked offline for a dead node: announce them. */
  readonly onReleased: (devices: readonly ReleasedDevice[], time: number) => void;
  readonly log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  readonly beatMs?: number;
  readonly deadMs?: number;
}

/**
 * This node's part in keeping presence true across a cluster: it beats on the bus, hears the others,
 * and when one falls silent marks the devices it held offline. Once, a dead-node window after start, it
 * also sweeps devices held by no live node (the whole cluster went down, or a node died while this one
 * was starting), since no beat will ever lapse for those.
 *
 * While this node's bus is cut off it hears nobody, which says nothing about the others: it declares no
 * node dead then, and once the bus is back it gives every node it knew a fresh window to be heard. (The
 * others may meanwhile have taken this node for dead; the gateway reclaims its devices on reconnect.)
 */
export class ClusterMembership {
  readonly #deps: ClusterMembershipDeps;
  readonly #nodes: NodeLiveness;
  readonly #beatMs: number;
  readonly #deadMs: number;
  readonly #startedAt: number;
  #swept = false;
  #timer: TimerHandle | undefined;
  #unsubscribe: (() => void) | undefined;
  #releasing: Promise<void> = Promise.resolve();
  /** Set while the bus was seen cut off: the next beat with the bus back starts every node's window anew. */
  #cutOff = false;

  constructor(deps: ClusterMembershipDeps) {
    this.#deps = deps;
    this.#beatMs = deps.beatMs ?? NODE_BEAT_MS;
    this.#deadMs = deps.deadMs ?? NODE_DEAD_MS;
    this.#nodes = new NodeLiveness(this.#deadMs);
    this.#startedAt = deps.clock.now();
  }

  start(): void {
    const { bus, nodeId, clock } = this.#deps;
    this.#unsubscribe = bus.subscribe(Subject.nodeAlive, (m) => {
      if (m.node === nodeId) return;
      if (m.leaving === true) this.#nodes.left(m.node);
      else this.#nodes.heard(m.node, clock.now());
    });
    this.#beat();
  }

  /** Says goodbye, so the others do not take this node for dead; its own devices it marks offline itself. */
  stop(): Promise<void> {
    if (this.#timer !== undefined) this.#deps.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe?.();
    this.#deps.bus.publish(Subject.nodeAlive, { node: this.#deps.nodeId, leaving: true });
    return this.#releasing;
  }

  /** Nodes heard from lately, this one included. */
  alive(): string[] {
    return [this.#deps.nodeId, ...this.#nodes.alive()];
  }

  #beat(): void {
    const { bus, nodeId, clock } = this.#deps;
    bus.publish(Subject.nodeAlive, { node: nodeId });
    const now = clock.now();
    if (bus.connected === false) {
      this.#cutOff = true;
      this.#timer = clock.setTimeout(() => this.#beat(), this.#beatMs);
      return;
    }
    if (this.#cutOff) {
      this.#cutOff = false;
      for (const node of this.#nodes.alive()) this.#nodes.heard(node, now);
    }
    const dead = this.#nodes.lapsed(now);
    if (dead.length > 0) this.#release(() => this.#deps.holders.release(dead, now), `nodes ${dead.join(', ')} fell silent`);
    if (!this.#swept && now - this.#startedAt > this.#deadMs) {
      this.#swept = true;
      const alive = this.alive();
      // Only logins older than this node: one made since then is held by a node that was alive then,
      // whose death its beats will tell, even if a busy bus delayed them past this first window.
      this.#release(() => this.#deps.holders.releaseAllBut(alive, this.#startedAt, now), 'held by no live node');
    }
    this.#timer = clock.setTimeout(() => this.#beat(), this.#beatMs);
  }

  #release(mark: () => Promise<readonly ReleasedDevice[]>, why: string): void {
    this.#releasing = this.#releasing
      .then(mark)
      .then((released) => {
        if (released.length === 0) return;
        this.#deps.log.info({ devices: released.length }, `devices marked offline: ${why}`);
        this.#deps.onReleased(released, this.#deps.clock.now());
      })
      .catch((err: unknown) => this.#deps.log.warn({ err }, 'marking the devices of dead nodes offline failed'));
  }
}
