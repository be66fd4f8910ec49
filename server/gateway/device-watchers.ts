import { Command, type DeviceGroupControlEvent, type Envelope } from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import { type CommandOutcome, Subject } from '../bus/subjects.ts';
import type { ConsoleLink } from './console-link.ts';

/**
 * Consoles watching a device (a device view is open) hear the outcome of every command sent to it, by
 * anyone, on any node: an operator sees that a colleague just rebooted the device in front of them.
 * Outcomes carry no reply data, which stays with the requester (file lists, logs, shell output).
 */
export class DeviceWatchers {
  readonly #bus: Bus;
  readonly #nodeId: string;
  readonly #watchers = new Map<string, Set<ConsoleLink>>();
  readonly #busSubs = new Map<string, () => void>();
  /** Group-control sessions (issue 22): the account and devices of each console in one. */
  readonly #groups = new Map<ConsoleLink, { readonly by: string; readonly sns: ReadonlySet<string> }>();

  constructor(bus: Bus, nodeId: string) {
    this.#bus = bus;
    this.#nodeId = nodeId;
  }

  /** Starts or stops `link` watching `sn` (its permission and scope are checked by the caller). */
  watch(link: ConsoleLink, sn: string, on: boolean): void {
    let set = this.#watchers.get(sn);
    if (on) {
      if (!set) {
        set = new Set();
        this.#watchers.set(sn, set);
        if (this.#bus.shared) {
          this.#busSubs.set(
            sn,
            this.#bus.subscribe(Subject.deviceOutcome(sn), (m) => {
              if (m.node !== this.#nodeId) this.#deliver(sn, m.outcome, undefined);
            }),
          );
        }
      }
      set.add(link);
      // A console starting to watch hears the group sessions already including the device.
      for (const [other, g] of this.#groups) if (other !== link && g.sns.has(sn)) link.peer.send(this.#groupEvent(sn, true, g.by), true);
    } else if (set?.delete(link) && set.size === 0) {
      this.#forget(sn);
    }
  }

  /**
   * The group-control session of `link` now holds `sns` (already checked: the live-control key and each
   * device in scope); empty ends it. The other consoles watching a device that joined or left hear it.
   */
  groupSession(link: ConsoleLink, by: string, sns: ReadonlySet<string>): void {
    const before = this.#groups.get(link);
    if (sns.size === 0) this.#groups.delete(link);
    else this.#groups.set(link, { by, sns });
    for (const sn of before?.sns ?? []) if (!sns.has(sn)) this.#tellGroup(sn, false, before?.by ?? by, link);
    for (const sn of sns) if (!before?.sns.has(sn)) this.#tellGroup(sn, true, by, link);
  }

  /** Stops every watch, and ends the group session, of a console that went away. */
  consoleGone(link: ConsoleLink): void {
    if (this.#groups.has(link)) this.groupSession(link, '', new Set());
    for (const [sn, set] of this.#watchers) if (set.delete(link) && set.size === 0) this.#forget(sn);
  }

  /**
   * A device moved to another organisation: the watches of consoles that do not reach it there end (the
   * watch was checked when it began, and would otherwise tell the old organisation of the new one's work).
   */
  deviceMoved(sn: string, outside: (link: ConsoleLink) => boolean): void {
    const set = this.#watchers.get(sn);
    if (!set) return;
    for (const link of set) if (outside(link)) set.delete(link);
    if (set.size === 0) this.#forget(sn);
  }

  /**
   * A command to `sn` ended; every watcher but the requester (`origin`) hears it. On the command hot path:
   * nothing is allocated unless someone may be watching (here, or on another node of a cluster).
   */
  commandEnded(sn: string, msgId: number, result: number, by: string, time: number, origin: ConsoleLink | undefined): void {
    const local = this.#watchers.has(sn);
    if (!local && !this.#bus.shared) return;
    const outcome: CommandOutcome = { msgId, result, by, time };
    if (local) this.#deliver(sn, outcome, origin);
    if (this.#bus.shared) this.#bus.publish(Subject.deviceOutcome(sn), { node: this.#nodeId, outcome: { ...outcome } });
  }

  #deliver(sn: string, outcome: CommandOutcome, origin: ConsoleLink | undefined): void {
    const set = this.#watchers.get(sn);
    if (!set) return;
    const env: Envelope = { msgId: Command.DeviceCommandOutcome, sn, data: outcome };
    for (const link of set) if (link !== origin) link.peer.send(env, true);
  }

  #groupEvent(sn: string, active: boolean, by: string): Envelope {
    return { msgId: Command.DeviceGroupControl, sn, data: { active, by } satisfies DeviceGroupControlEvent };
  }

  #tellGroup(sn: string, active: boolean, by: string, origin: ConsoleLink): void {
    const set = this.#watchers.get(sn);
    if (!set) return;
    const env = this.#groupEvent(sn, active, by);
    for (const link of set) if (link !== origin) link.peer.send(env, true);
  }

  #forget(sn: string): void {
    this.#watchers.delete(sn);
    this.#busSubs.get(sn)?.();
    this.#busSubs.delete(sn);
  }
}
