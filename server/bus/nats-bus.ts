import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { type Bus, type BusLog, consoleBusLog } from './bus.ts';
import { type RawHandler, SubjectHandlers } from './handlers.ts';
import type { BusMap, BusSubject, SubjectDecoders } from './subjects.ts';

const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/**
 * The bus of a cluster: NATS core publish/subscribe, messages in msgpack. While NATS is unreachable
 * (restarting, the network cut) the node goes on alone: what it publishes reaches its own subscribers
 * only, as the in-process bus would, and the client reconnects by itself, with this node's
 * subscriptions, when NATS is back. Messages of that time do not reach the other nodes later either:
 * they would arrive stale (presence, command replies whose requesters gave up). Every message, from
 * NATS or delivered locally, is unpacked and decoded by its subject's decoder before a handler sees it.
 */
export class NatsBus<M = BusMap> implements Bus<M> {
  readonly shared = true;
  readonly #nc: NatsConnection;
  readonly #prefix: string;
  readonly #log: BusLog;
  /** This node's handlers (by subject name, without the prefix), for delivery while NATS is unreachable. */
  readonly #local: SubjectHandlers<M>;
  #connected = true;
  readonly #reconnectListeners = new Set<() => void>();

  private constructor(nc: NatsConnection, prefix: string, subjects: SubjectDecoders<M>, log: BusLog) {
    this.#nc = nc;
    this.#prefix = prefix;
    this.#log = log;
    this.#local = new SubjectHandlers(subjects, log);
    void this.#watch();
  }

  /**
   * Connects to NATS at `url` (for example nats://127.0.0.1:4222); every subject gets `prefix.` before it,
   * and `subjects` decode what arrives.
   */
  static async connect<M>(url: string, name: string, prefix: string, subjects: SubjectDecoders<M>, log: BusLog = consoleBusLog): Promise<NatsBus<M>> {
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix)) throw new Error(`Invalid NATS subject prefix "${prefix}"`);
    return new NatsBus(await connect({ servers: url, name, maxReconnectAttempts: -1 }), prefix, subjects, log);
  }

  /** False while NATS is unreachable and messages stay on this node. */
  get connected(): boolean {
    return this.#connected;
  }

  async #watch(): Promise<void> {
    for await (const status of this.#nc.status()) {
      if (status.type === 'disconnect' && this.#connected) {
        this.#connected = false;
        this.#log.warn({ server: status.server }, 'NATS connection lost: bus messages stay on this node until it is back');
      } else if (status.type === 'reconnect') {
        this.#connected = true;
        this.#log.warn({ server: status.server }, 'NATS connection back: bus messages reach the cluster again');
        for (const listener of [...this.#reconnectListeners]) {
          try {
            listener();
          } catch (err) {
            this.#log.warn({ err }, 'bus reconnect listener failed');
          }
        }
      }
    }
  }

  publish<K extends keyof M & string>(subject: BusSubject<K>, message: M[K]): void {
    // During shutdown sockets close after the bus has drained; their presence news has no audience.
    if (this.#nc.isClosed() || this.#nc.isDraining()) return;
    const full = `${this.#prefix}.${subject.name}`;
    const bytes = packr.pack(message);
    if (this.#connected) {
      try {
        this.#nc.publish(full, bytes);
        return;
      } catch (err) {
        // The client refuses while its buffer of unsent messages is full: the connection is as good as lost.
        this.#log.warn({ err, subject: subject.name }, 'NATS publish failed: delivered on this node only');
      }
    }
    // A copy, as NATS would deliver it: a handler may keep or change what it is given.
    for (const run of this.#local.handlersOf(subject.name)) this.#run(run, bytes, full);
  }

  #run(handler: RawHandler, bytes: Uint8Array, full: string): void {
    let value: unknown;
    try {
      value = packr.unpack(bytes);
    } catch (err) {
      this.#log.warn({ err, subject: full }, 'undecodable bus message dropped');
      return;
    }
    try {
      handler(value);
    } catch (err) {
      // One subscriber's bug must not end the others' delivery, nor the NATS client's read loop.
      this.#log.warn({ err, subject: full }, 'bus subscriber failed');
    }
  }

  subscribe<K extends keyof M & string>(subject: BusSubject<K>, handler: (message: M[K]) => void): () => void {
    const full = `${this.#prefix}.${subject.name}`;
    this.#local.add(subject, handler);
    const run = this.#local.wrap(subject, handler);
    // NATS keeps a subscription made while it reconnects, and makes it on the server once back.
    const sub = this.#nc.subscribe(full, {
      callback: (err, msg) => {
        if (!err) this.#run(run, msg.data, full);
      },
    });
    return () => {
      sub.unsubscribe();
      this.#local.remove(subject, handler);
    };
  }

  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => this.#reconnectListeners.delete(listener);
  }

  /** Resolves once everything published so far has reached the server (tests and shutdown). */
  async flush(): Promise<void> {
    await this.#nc.flush();
  }

  async close(): Promise<void> {
    this.#local.clear();
    this.#reconnectListeners.clear();
    // Draining waits for the server to confirm; with no server there is nothing to drain.
    if (this.#connected) await this.#nc.drain();
    else await this.#nc.close();
  }
}
