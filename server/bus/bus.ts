import type { BusMap, BusSubject } from './subjects.ts';

/**
 * Publish/subscribe between server processes, typed by subject: a message published on a subject of kind
 * `K` is an `M[K]`, and a handler of that subject is given one. One node uses the in-process bus; the
 * worker processes of a node share the IPC bus; several nodes share NATS. The IPC and NATS buses decode
 * every message arriving from another process with its subject's decoder (server/bus/subjects.ts) before
 * a handler sees it, so handlers read typed data and never coerce. Subjects are exact names (no
 * wildcards), so every implementation behaves the same.
 */
export interface Bus<M = BusMap> {
  /** True when other processes may be listening (IPC, NATS); false for the in-process bus. */
  readonly shared: boolean;
  publish<K extends keyof M & string>(subject: BusSubject<K>, message: M[K]): void;
  /** Returns the function that ends the subscription. */
  subscribe<K extends keyof M & string>(subject: BusSubject<K>, handler: (message: M[K]) => void): () => void;
  close(): Promise<void>;
  /**
   * False while a shared bus cannot reach the other nodes (messages then stay on this node); absent on a
   * bus that never loses them. Silence heard meanwhile says nothing about the other nodes.
   */
  readonly connected?: boolean;
  /** Hears the bus come back after it was cut off; returns the function that stops listening. */
  onReconnect?(listener: () => void): () => void;
}

/** What a bus says about messages it drops and connections it loses; the server gives it its logger. */
export interface BusLog {
  warn(obj: object, msg: string): void;
}

export const consoleBusLog: BusLog = { warn: (obj, msg) => console.warn(msg, obj) };
