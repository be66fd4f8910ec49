import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import type { Bus, BusMessage } from './bus.ts';

const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/** The bus of a cluster: NATS core publish/subscribe, messages in msgpack. */
export class NatsBus implements Bus {
  readonly shared = true;
  readonly #nc: NatsConnection;
  readonly #prefix: string;

  private constructor(nc: NatsConnection, prefix: string) {
    this.#nc = nc;
    this.#prefix = prefix;
  }

  /** Connects to NATS at `url` (for example nats://127.0.0.1:4222); every subject gets `prefix.` before it. */
  static async connect(url: string, name: string, prefix: string): Promise<NatsBus> {
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix)) throw new Error(`Invalid NATS subject prefix "${prefix}"`);
    return new NatsBus(await connect({ servers: url, name, maxReconnectAttempts: -1 }), prefix);
  }

  publish(subject: string, message: BusMessage): void {
    // During shutdown sockets close after the bus has drained; their presence news has no audience.
    if (this.#nc.isClosed() || this.#nc.isDraining()) return;
    this.#nc.publish(`${this.#prefix}.${subject}`, packr.pack(message));
  }

  subscribe(subject: string, handler: (message: BusMessage) => void): () => void {
    const sub = this.#nc.subscribe(`${this.#prefix}.${subject}`, {
      callback: (err, msg) => {
        if (err) return;
        const value: unknown = packr.unpack(msg.data);
        if (typeof value === 'object' && value !== null) handler(value as BusMessage);
      },
    });
    return () => sub.unsubscribe();
  }

  /** Resolves once everything published so far has reached the server (tests and shutdown). */
  async flush(): Promise<void> {
    await this.#nc.flush();
  }

  async close(): Promise<void> {
    await this.#nc.drain();
  }
}
