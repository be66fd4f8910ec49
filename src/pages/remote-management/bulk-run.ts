import { decodeFailure, type DeviceListFilter, type Envelope, LINUX_CANNOT, LINUX_REFUSED_COMMANDS, Result, type ResultCode } from '../../../protocol/index.ts';
import type { EngineClient } from '../../../workers/engine-client.ts';
import { RunPublisher } from './run-publisher.ts';

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
  readonly #publisher = new RunPublisher();
  #next = 0;
  #inFlight = 0;
  #summary: BulkSummary;
  readonly #engine: Pick<EngineClient, 'request'>;
  /** The serials this run sends to: all of them but those refused before sending. */
  readonly #toSend: readonly string[];

  /**
   * `linux` names the serials known to be Linux devices: when the command is one of
   * LINUX_REFUSED_COMMANDS they are refused here, before anything is sent, with the spec's text as their
   * outcome (the device would answer the same).
   */
  constructor(engine: Pick<EngineClient, 'request'>, msgId: number, sns: readonly string[], data?: unknown, linux: ReadonlySet<string> = new Set()) {
    this.#engine = engine;
    this.msgId = msgId;
    this.sns = sns;
    this.data = data;
    const refused = LINUX_REFUSED_COMMANDS.has(msgId) ? sns.filter((sn) => linux.has(sn)) : [];
    for (const sn of sns) this.#outcomes.set(sn, { state: 'waiting' });
    for (const sn of refused) this.#outcomes.set(sn, { state: 'done', result: Result.Fail, message: LINUX_CANNOT });
    this.#toSend = refused.length === 0 ? sns : sns.filter((sn) => !linux.has(sn));
    this.#summary = { total: sns.length, done: refused.length, ok: 0, failed: refused.length };
  }

  start(): void {
    this.#pump();
  }

  #pump(): void {
    while (this.#inFlight < BULK_WINDOW && this.#next < this.#toSend.length) {
      const sn = this.#toSend[this.#next++] as string;
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
        this.#publisher.changed();
        this.#pump();
      };
      this.#engine.request(this.msgId, { sn, data: this.data }).subscribe({
        next: (e) => {
          if (e.kind === 'result') settle(e.reply.result ?? Result.Fail, messageOf(e.reply));
        },
        error: (err: unknown) => settle(Result.Fail, err instanceof Error ? err.message : String(err)),
      });
    }
    this.#publisher.changed();
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
    return this.#publisher.version;
  }

  subscribe(listener: () => void): () => void {
    return this.#publisher.subscribe(listener);
  }
}

/**
 * The Linux devices among those a bulk command reaches, for its pre-check: asked of the server only when
 * the command is one Linux devices cannot do. `filter` is the page's query, which the selection is always
 * within; `select` is the device API's control-by-query call. It resolves at most 10,000 serials; Linux
 * devices beyond that are sent the command and refuse it themselves, with the same text.
 */
export async function linuxAmong(msgId: number, filter: DeviceListFilter, select: (f: DeviceListFilter) => Promise<{ sns: readonly string[] }>): Promise<ReadonlySet<string>> {
  if (!LINUX_REFUSED_COMMANDS.has(msgId) || (filter.systemType !== undefined && filter.systemType !== 'linux')) return new Set();
  return new Set((await select({ ...filter, systemType: 'linux' })).sns);
}

function messageOf(reply: Envelope): string | undefined {
  return reply.result === Result.Success ? undefined : decodeFailure(reply.data).message;
}

/** Package names from a comma list; Chinese commas and spaces count as commas (devices-and-commerce section 5). */
export function parsePackages(text: string): string[] {
  return [...new Set(text.split(/[,，\s]+/).filter((p) => p.length > 0))];
}
