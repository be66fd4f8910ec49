import { type Bus, type BusLog, consoleBusLog } from './bus.ts';
import { SubjectHandlers } from './handlers.ts';
import { type BusIpcMessage, type IpcPort, isBusIpcMessage } from './ipc-bus.ts';
import type { BusMap, BusSubject, SubjectDecoders } from './subjects.ts';

/** What a member keeps of each peer. */
interface PeerEntry {
  stop: () => void;
  readonly hello: () => void;
  readonly publishes: ReadonlySet<string> | undefined;
}

/**
 * The bus of the processes of one node (GATEWAY_WORKERS > 1, no NATS): every process, the primary and each
 * worker, is a member linked to every other, and a message goes from its publisher straight to the members
 * subscribed to its subject. Nothing is relayed: a command from a console on one worker to a device on
 * another crosses one link, its reply one link back (issue 21: the primary's relay cost 76 us a command and
 * a third process's CPU; DECISIONS, "The bus of a node of workers").
 *
 * Each member tells each peer which subjects it has handlers for (`bus.sub` with its first handler,
 * `bus.unsub` with its last, and every subject it has when a link is made), so a publisher sends only
 * where someone listens. A link is an {@link IpcPort}: the primary's IPC channel to a worker, or a Unix
 * socket between two workers (socket-port.ts). Order is kept per pair of members, as each link is FIFO.
 * What arrives from a peer is decoded by its subject's decoder before a handler sees it (what crosses a
 * process is untrusted). The publisher's own handlers hear its message as a peer would: a copy, after the
 * current turn.
 */
export class MeshBus<M = BusMap> implements Bus<M> {
  readonly shared = true;
  readonly #handlers: SubjectHandlers<M>;
  /**
   * The peers subscribed, by subject: the one peer itself where there is one, as for every device's own
   * subjects (a node of 50,000 devices has 100,000 of them in every member; a Set each would cost more
   * memory than the device's socket).
   */
  readonly #subscribers = new Map<string, IpcPort | Set<IpcPort>>();
  /** Each peer's way to stop listening, what its hello resolves, and the subjects it publishes (all when undefined). */
  readonly #peers = new Map<IpcPort, PeerEntry>();
  /** Messages published here for this member's own handlers, delivered at the end of the turn. */
  #own: { readonly subject: string; readonly message: unknown }[] = [];
  #ownScheduled: NodeJS.Immediate | undefined;

  /** `subjects` decode what this member's handlers hear. */
  constructor(subjects: SubjectDecoders<M>, log: BusLog = consoleBusLog) {
    this.#handlers = new SubjectHandlers(subjects, log);
  }

  /**
   * Links a peer: tells it every subject this member listens to, then hello, and from then on hears its
   * subscriptions and its messages. Resolves when the peer's own hello has arrived, so that every
   * subscription it had when the link was made is known here. `publishes`: the only subjects the peer
   * ever publishes, when it is known (the node's primary publishes presence alone); it is told only of
   * this member's subscriptions to those, not of every device's two subjects at every login.
   */
  join(peer: IpcPort, publishes?: ReadonlySet<string>): Promise<void> {
    if (this.#peers.has(peer)) return Promise.resolve();
    return new Promise((resolve) => {
      // Known before it listens: a link may hand over at once what the peer sent before (its hello too).
      const entry: PeerEntry = { stop: () => undefined, hello: resolve, publishes };
      this.#peers.set(peer, entry);
      entry.stop = peer.listen((m) => {
        if (isBusIpcMessage(m)) this.#hear(peer, m);
      });
      for (const subject of this.#handlers.names()) if (!publishes || publishes.has(subject)) peer.send({ dcc: 'bus.sub', subject });
      peer.send({ dcc: 'bus.hello' });
    });
  }

  /** Forgets a peer whose link closed (its process exited), with every subscription it had. */
  leave(peer: IpcPort): void {
    const entry = this.#peers.get(peer);
    if (!entry) return;
    entry.stop();
    // Whoever waits for its hello waits no longer: the peer is gone.
    entry.hello();
    this.#peers.delete(peer);
    for (const subject of [...this.#subscribers.keys()]) this.#unsubscribe(peer, subject);
  }

  /** Peers linked now (diagnostics and tests). */
  get peerCount(): number {
    return this.#peers.size;
  }

  /** Subjects at least one peer listens to (diagnostics and tests). */
  get subjectCount(): number {
    return this.#subscribers.size;
  }

  publish<K extends keyof M & string>(subject: BusSubject<K>, message: M[K]): void {
    const peers = this.#subscribers.get(subject.name);
    if (peers !== undefined) {
      // One envelope for every peer: each link serialises it when its turn's batch leaves, and nothing changes it.
      const deliver: BusIpcMessage = { dcc: 'bus.deliver', subject: subject.name, message };
      if (peers instanceof Set) for (const peer of peers) peer.send(deliver);
      else peers.send(deliver);
    }
    if (!this.#handlers.has(subject.name)) return;
    // A copy, as a peer gets one: the publisher may change its object after publishing.
    this.#own.push({ subject: subject.name, message: structuredClone(message) });
    this.#ownScheduled ??= setImmediate(() => this.#deliverOwn());
  }

  subscribe<K extends keyof M & string>(subject: BusSubject<K>, handler: (message: M[K]) => void): () => void {
    if (this.#handlers.add(subject, handler)) this.#tellPeers({ dcc: 'bus.sub', subject: subject.name });
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      if (this.#handlers.remove(subject, handler)) this.#tellPeers({ dcc: 'bus.unsub', subject: subject.name });
    };
  }

  async close(): Promise<void> {
    for (const subject of [...this.#handlers.names()]) this.#tellPeers({ dcc: 'bus.unsub', subject });
    // The process may exit right after: what is queued leaves now.
    for (const peer of this.#peers.keys()) peer.flush?.();
    for (const peer of [...this.#peers.keys()]) this.leave(peer);
    this.#handlers.clear();
    if (this.#ownScheduled) clearImmediate(this.#ownScheduled);
    this.#ownScheduled = undefined;
    this.#own = [];
  }

  /** A subscription or its end, to every peer that may publish on its subject. */
  #tellPeers(message: BusIpcMessage & { readonly subject: string }): void {
    for (const [peer, { publishes }] of this.#peers) if (!publishes || publishes.has(message.subject)) peer.send(message);
  }

  #hear(peer: IpcPort, m: BusIpcMessage): void {
    switch (m.dcc) {
      case 'bus.deliver':
        return this.#handlers.deliver(m.subject, m.message);
      case 'bus.sub': {
        const now = this.#subscribers.get(m.subject);
        if (now === undefined) this.#subscribers.set(m.subject, peer);
        else if (now instanceof Set) now.add(peer);
        else if (now !== peer) this.#subscribers.set(m.subject, new Set([now, peer]));
        return;
      }
      case 'bus.unsub':
        return this.#unsubscribe(peer, m.subject);
      case 'bus.hello':
        return this.#peers.get(peer)?.hello();
    }
  }

  #unsubscribe(peer: IpcPort, subject: string): void {
    const now = this.#subscribers.get(subject);
    if (now === peer) this.#subscribers.delete(subject);
    else if (now instanceof Set && now.delete(peer) && now.size === 0) this.#subscribers.delete(subject);
  }

  #deliverOwn(): void {
    this.#ownScheduled = undefined;
    const own = this.#own;
    this.#own = [];
    for (const { subject, message } of own) this.#handlers.deliver(subject, message);
  }
}

/**
 * Two ends of a link within one process, each delivering to the other at once, a copy as a process
 * boundary would make: members of a mesh in one process (tests, and a bus standing for several workers).
 */
export function memoryLink(): readonly [IpcPort, IpcPort] {
  // Per direction: who listens, and what was sent before anyone did (a socket would hold it too).
  const sides = [
    { listeners: new Set<(m: unknown) => void>(), held: [] as unknown[] },
    { listeners: new Set<(m: unknown) => void>(), held: [] as unknown[] },
  ] as const;
  const end = (inbox: (typeof sides)[number], out: (typeof sides)[number]): IpcPort => ({
    send: (m) => {
      const copy = structuredClone(m);
      if (out.listeners.size === 0) out.held.push(copy);
      for (const h of [...out.listeners]) h(copy);
    },
    listen: (h) => {
      inbox.listeners.add(h);
      for (const m of inbox.held.splice(0)) h(m);
      return () => void inbox.listeners.delete(h);
    },
  });
  return [end(sides[0], sides[1]), end(sides[1], sides[0])];
}

/** Links every member to every other through {@link memoryLink}s; resolves once each has heard each hello. */
export async function linkInMemory<M>(members: readonly MeshBus<M>[]): Promise<void> {
  const joins: Promise<void>[] = [];
  for (const [i, a] of members.entries()) {
    for (const b of members.slice(i + 1)) {
      const [ab, ba] = memoryLink();
      joins.push(a.join(ab), b.join(ba));
    }
  }
  await Promise.all(joins);
}
