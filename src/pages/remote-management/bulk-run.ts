import { useSyncExternalStore } from 'react';
import { type Envelope, Result, type ResultCode } from '../../../protocol/index.ts';
import type { EngineClient } from '../../../workers/engine-client.ts';

/** Commands in flight at once: enough to finish 1,000 devices in a few round trips, few enough not to flood the socket. */
export const BULK_WINDOW = 200;

/** One device's outcome: waiting to be sent, sent and awaiting its result, or the result code and text. */
export type Outcome = { readonly state: 'waiting' } | { readonly state: 'sent' } | { readonly state: 'done'; readonly result: ResultCode; readonly message?: string };

export interface BulkSummary {
  readonly total: number;
  readonly done: number;
  readonly ok: number;
  readonly failed: number;
}

/**
 * One bulk command over many devices: sent through the worker engine with at most {@link BULK_WINDOW}
 * in flight, outcomes recorded as replies arrive and published to the view once per animation frame.
 */
export class BulkRun {
  readonly msgId: number;
  readonly data: unknown;
  readonly sns: readonly string[];
  readonly #outcomes = new Map<string, Outcome>();
  readonly #listeners = new Set<() => void>();
  #next = 0;
  #inFlight = 0;
  #version = 0;
  #frame = 0;
  #summary: BulkSummary;
  readonly #engine: Pick<EngineClient, 'request'>;

  constructor(engine: Pick<EngineClient, 'request'>, msgId: number, sns: readonly string[], data?: unknown) {
    this.#engine = engine;
    this.msgId = msgId;
    this.sns = sns;
    this.data = data;
    for (const sn of sns) this.#outcomes.set(sn, { state: 'waiting' });
    this.#summary = { total: sns.length, done: 0, ok: 0, failed: 0 };
  }

  start(): void {
    this.#pump();
  }

  #pump(): void {
    while (this.#inFlight < BULK_WINDOW && this.#next < this.sns.length) {
      const sn = this.sns[this.#next++] as string;
      this.#inFlight++;
      this.#outcomes.set(sn, { state: 'sent' });
      let settled = false;
      const settle = (result: ResultCode, message?: string) => {
        if (settled) return;
        settled = true;
        this.#inFlight--;
        this.#outcomes.set(sn, { state: 'done', result, message });
        const s = this.#summary;
        this.#summary = { ...s, done: s.done + 1, ok: s.ok + (result === Result.Success ? 1 : 0), failed: s.failed + (result === Result.Success ? 0 : 1) };
        this.#changed();
        this.#pump();
      };
      this.#engine.request(this.msgId, { sn, data: this.data }).subscribe({
        next: (e) => {
          if (e.kind === 'result') settle(e.reply.result ?? Result.Fail, messageOf(e.reply));
        },
        error: (err: unknown) => settle(Result.Fail, err instanceof Error ? err.message : String(err)),
      });
    }
    this.#changed();
  }

  #changed(): void {
    this.#version++;
    if (this.#frame !== 0) return;
    const publish = () => {
      this.#frame = 0;
      for (const l of this.#listeners) l();
    };
    this.#frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(publish) : (setTimeout(publish, 16) as unknown as number);
  }

  outcome(sn: string): Outcome {
    return this.#outcomes.get(sn) ?? { state: 'waiting' };
  }

  get summary(): BulkSummary {
    return this.#summary;
  }

  /** Serials whose final result was not success. */
  get failed(): string[] {
    return this.sns.filter((sn) => {
      const o = this.#outcomes.get(sn);
      return o?.state === 'done' && o.result !== Result.Success;
    });
  }

  get version(): number {
    return this.#version;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

function messageOf(reply: Envelope): string | undefined {
  const m = (reply.data as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' ? m : undefined;
}

/** Re-renders on the run's per-frame publications; returns its version. */
export function useBulkRun(run: BulkRun | undefined): number {
  return useSyncExternalStore(
    (l) => run?.subscribe(l) ?? (() => undefined),
    () => run?.version ?? 0,
  );
}

/** Package names from a comma list; Chinese commas and spaces count as commas (devices-and-commerce section 5). */
export function parsePackages(text: string): string[] {
  return [...new Set(text.split(/[,，\s]+/).filter((p) => p.length > 0))];
}
