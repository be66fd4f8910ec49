import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import type { Bus, BusMessage } from './bus.ts';

const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/** What the bus says about its connection; the server gives it its logger. */
export interface BusLog {
  warn(obj: object, msg: string): void;
}

const consoleLog: BusLog = { warn: (obj, msg) => console.warn(msg, obj) };

type Handler = (message: BusMessage) => void;

/**
 * The bus of a cluster: NATS core publish/subscribe, messages in msgpack. While NATS is unreachable
 * (restarting, the network cut) the node goes on alone: what it publishes reaches its own subscribers
 * only, as the in-process bus would, and the client reconnects by itself, with this node's
 * subscriptions, when NATS is back. Messages of that time do not reach the other nodes later either:
 * they would arrive stale (presence, command replies whose requesters gave up).
 */
export class NatsBus implements Bus {
  readonly shared = true;
  readonly #nc: NatsConnection;
  readonly #prefix: string;
  readonly #log: BusLog;
  /** This node's handlers by full subject, for delivery while NATS is unreachable. */
  readonly #local = new Map<string, Set<Handler>>();
  #connected = true;
  readonly #reconnectListeners = new Set<() => void>();

  private constructor(nc: NatsConnection, prefix: string, log: BusLog) {
    this.#nc = nc;
    this.#prefix = prefix;
    this.#log = log;
    void this.#watch();
  }

  /** Connects to NATS at `url` (for example nats://127.0.0.1:4222); every subject gets `prefix.` before it. */
  static async connect(url: string, name: string, prefix: string, log: BusLog = consoleLog): Promise<NatsBus> {
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix)) throw new Error(`Invalid NATS subject prefix "${prefix}"`);
    return new NatsBus(await connect({ servers: url, name, maxReconnectAttempts: -1 }), prefix, log);
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

  publish(subject: string, message: BusMessage): void {
    // During shutdown sockets close after the bus has drained; their presence news has no audience.
    if (this.#nc.isClosed() || this.#nc.isDraining()) return;
    const full = `${this.#prefix}.${subject}`;
    const bytes = packr.pack(message);
    if (this.#connected) {
      try {
        this.#nc.publish(full, bytes);
        return;
      } catch (err) {
        // The client refuses while its buffer of unsent messages is full: the connection is as good as lost.
        this.#log.warn({ err, subject }, 'NATS publish failed: delivered on this node only');
      }
    }
    // A copy, as NATS would deliver it: a handler may keep or change what it is given.
    this.#deliverLocally(full, bytes);
  }

  #deliverLocally(full: string, bytes: Uint8Array): void {
    const handlers = this.#local.get(full);
    if (!handlers) return;
    for (const handler of [...handlers]) this.#run(handler, bytes, full);
  }

  #run(handler: Handler, bytes: Uint8Array, full: string): void {
    let value: unknown;
    try {
      value = packr.unpack(bytes);
    } catch (err) {
      this.#log.warn({ err, subject: full }, 'undecodable bus message dropped');
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    try {
      handler(value as BusMessage);
    } catch (err) {
      // One subscriber's bug must not end the others' delivery, nor the NATS client's read loop.
      this.#log.warn({ err, subject: full }, 'bus subscriber failed');
    }
  }

  subscribe(subject: string, handler: Handler): () => void {
    const full = `${this.#prefix}.${subject}`;
    let handlers = this.#local.get(full);
    if (!handlers) {
      handlers = new Set();
      this.#local.set(full, handlers);
    }
    const set = handlers;
    set.add(handler);
    // NATS keeps a subscription made while it reconnects, and makes it on the server once back.
    const sub = this.#nc.subscribe(full, {
      callback: (err, msg) => {
        if (!err) this.#run(handler, msg.data, full);
      },
    });
    return () => {
      sub.unsubscribe();
      set.delete(handler);
      if (set.size === 0) this.#local.delete(full);
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
