import type { Bus } from '../bus/bus.ts';
import { type RightsChange, type RightsChanged, Subject } from '../bus/subjects.ts';

export type { RightsChange };

/** What writers of roles, accounts and organisations are given: call it after the change is committed. */
export interface RightsNotifier {
  changed(change: RightsChange): Promise<void>;
}

/** For repositories built without one (unit tests, scripts): nobody holds cached rights to tell. */
export const noRightsNotifier: RightsNotifier = { changed: async () => undefined };

/** How long a change waits for the bus to carry it back before the writer carries on regardless. */
const ECHO_WAIT_MS = 1_000;

// Only the fields given: msgpack and IPC both carry them, and an absent field stays absent.
function rightsMessage(node: string, seq: number, change: RightsChange): RightsChanged {
  return {
    node,
    seq,
    ...(change.accounts ? { accounts: [...change.accounts] } : {}),
    ...(change.roles ? { roles: [...change.roles] } : {}),
    ...(change.orgs ? { orgs: [...change.orgs] } : {}),
    ...(change.all ? { all: true } : {}),
  };
}

/** The change a bus message tells, without who published it. */
function changeOf({ accounts, roles, orgs, all }: RightsChanged): RightsChange {
  return { accounts, roles, orgs, all: all === true };
}

/**
 * Tells every node and worker process that rights changed, so consoles holding cached rights reload them
 * (server/gateway/console-rights.ts). Listeners in this process hear it synchronously, before `changed`
 * returns. On a shared bus the change is also published, and `changed` resolves once the bus has carried
 * it back to this process: the bus delivers in order, so by then it has been handed to every other
 * subscriber too, and the writer's HTTP answer goes out only after that (docs/DECISIONS.md, live rights).
 */
export class RightsBus implements RightsNotifier {
  readonly #bus: Bus;
  readonly #nodeId: string;
  readonly #listeners = new Set<(change: RightsChange) => void>();
  readonly #echoes = new Map<number, () => void>();
  readonly #unsubscribe: () => void;
  #seq = 0;

  constructor(bus: Bus, nodeId: string) {
    this.#bus = bus;
    this.#nodeId = nodeId;
    this.#unsubscribe = bus.subscribe(Subject.rightsChanged, (m) => {
      if (m.node === nodeId) return this.#echoes.get(m.seq)?.();
      const change = changeOf(m);
      for (const listener of this.#listeners) listener(change);
    });
  }

  /** Hears every change, this process's own and other processes'; returns the function that stops it. */
  listen(listener: (change: RightsChange) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  async changed(change: RightsChange): Promise<void> {
    for (const listener of this.#listeners) listener(change);
    if (!this.#bus.shared) return;
    const seq = ++this.#seq;
    await new Promise<void>((resolve) => {
      // Real time, not an injected clock: this waits for a socket, and a test's fake clock may stand still.
      const timer = setTimeout(done, ECHO_WAIT_MS);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#echoes.set(seq, done);
      this.#bus.publish(Subject.rightsChanged, rightsMessage(this.#nodeId, seq, change));
    }).finally(() => this.#echoes.delete(seq));
  }

  close(): void {
    this.#unsubscribe();
    this.#listeners.clear();
    for (const done of this.#echoes.values()) done();
  }
}
