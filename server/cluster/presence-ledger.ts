import type { Bus } from '../bus/bus.ts';
import { type PresenceNews, Subject } from '../bus/subjects.ts';

/** A device a worker held when it died, and when that login began. */
export interface OrphanedDevice {
  readonly sn: string;
  readonly orgId: number;
  /** Time of the presence message of its login; a later login elsewhere is newer than this. */
  readonly onlineSince: number;
}

/**
 * The primary's record of which worker holds which device, kept from the presence messages every worker
 * publishes on the node's bus. A worker killed outright cannot mark its devices offline; the primary
 * does it for them with this record. Only the latest holder counts, so a device that has already
 * reconnected to another worker is not orphaned by the death of its previous one.
 */
export class PresenceLedger {
  readonly #holders = new Map<string, { node: string; orgId: number; since: number }>();

  /** Follows presence on `bus`; returns the function that stops following. */
  follow(bus: Bus): () => void {
    return bus.subscribe(Subject.presence, (m) => this.record(m));
  }

  /** One presence message, as the gateway publishes it. */
  record(m: PresenceNews): void {
    if (m.online) this.#holders.set(m.sn, { node: m.node, orgId: m.orgId, since: m.time });
    else if (this.#holders.get(m.sn)?.node === m.node) this.#holders.delete(m.sn);
  }

  /** Forgets and returns every device `node` held (it died). */
  release(node: string): OrphanedDevice[] {
    const orphans: OrphanedDevice[] = [];
    for (const [sn, h] of this.#holders) {
      if (h.node !== node) continue;
      orphans.push({ sn, orgId: h.orgId, onlineSince: h.since });
      this.#holders.delete(sn);
    }
    return orphans;
  }

  /** Devices held per node. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const h of this.#holders.values()) counts.set(h.node, (counts.get(h.node) ?? 0) + 1);
    return counts;
  }
}
