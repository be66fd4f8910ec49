import { filter, firstValueFrom, lastValueFrom, merge, Observable, ReplaySubject, Subject, tap } from 'rxjs';
import { Command } from '../catalogue/commands.ts';
import { Result } from '../catalogue/enums.ts';
import type { SendOf } from '../catalogue/command-map.ts';
import type { DeviceFileOffer } from '../catalogue/payloads.ts';
import type { FinalReply, RequestEvent, RequestOptions } from '../engine.ts';
import type { Envelope } from '../envelope.ts';
import { ErrorCode } from '../errors.ts';
import type { TransferProgress } from './chunk-receiver.ts';
import { sha256Hex } from './sha256.ts';
import { receiveFiles, sendFile, type TransferPort } from './transfer.ts';

/** The commands whose outcome is a file moving on a flow: an upload, or a file the device offers. */
export type FileCommand = typeof Command.FileUpload | OfferCommand;
/** The commands a device answers by offering a file on the request's flow (DOPS-3). */
export type OfferCommand = typeof Command.FileDownload | typeof Command.Screenshot | typeof Command.GrabLog;

/**
 * What a console sees of a device file operation: progress; `resuming` when its socket dropped and the
 * operation will continue from `bytes` once it is back (XFER-4); then the outcome.
 */
export type DeviceFileEvent<K extends number = FileCommand> =
  | { readonly kind: 'progress'; readonly bytes: number; readonly total: number }
  | { readonly kind: 'resuming'; readonly bytes: number; readonly total: number }
  | { readonly kind: 'done'; readonly reply: FinalReply<K>; readonly file?: { readonly name: string; readonly mime: string; readonly bytes: Uint8Array; readonly sha256: string } };

const FLOW_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Flows whose outcome a device remembers after they end, so a console that missed it hears it again. */
const MAX_REMEMBERED_JOBS = 1_000;

/** A fresh flow id with a readable prefix (`up`, `dl`, `sh`, ...). */
export function newFlowId(prefix: string, random: () => number = Math.random): string {
  let id = `${prefix}-`;
  for (let i = 0; i < 16; i++) id += FLOW_ALPHABET[Math.floor(random() * FLOW_ALPHABET.length)];
  return id;
}

/** True for the error a request gets when this side's socket dropped after sending it (worker errors carry the code too). */
function lostConnection(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === ErrorCode.ConnectionLost;
}

/**
 * Sends a file operation's request and, each time this side's socket drops before the final reply, sends
 * it again on the same flow once the socket is back (held by the engine until then): the device joins
 * the repeated request to the operation already running (XFER-4). Other errors end it.
 */
function askOnFlow<K extends FileCommand>(
  port: TransferPort,
  msgId: K,
  options: RequestOptions<K>,
  handlers: { next(event: RequestEvent<K>): void; lost(): void; error(err: unknown): void },
): { unsubscribe(): void } {
  let current: { unsubscribe(): void } | undefined;
  let closed = false;
  const ask = (again: boolean) => {
    current = port.request(msgId, { ...options, queue: again }).subscribe({
      next: (event) => handlers.next(event),
      error: (err: unknown) => {
        if (closed) return;
        if (!lostConnection(err)) return handlers.error(err);
        handlers.lost();
        ask(true);
      },
    });
  };
  ask(false);
  return {
    unsubscribe: () => {
      closed = true;
      current?.unsubscribe();
    },
  };
}

/**
 * Uploads bytes into a device folder (65602): asks the device to get ready, sends the bytes as a
 * transfer on the same flow and completes with the device's final reply once it has written the file.
 * A final reply other than 0 (or a refused transfer) completes without sending more. When the console's
 * socket drops it asks again on the flow; the device answers `ready` again and the transfer re-begins from
 * the device's last acknowledged chunk.
 */
export function uploadToDevice(
  port: TransferPort,
  opts: { sn: string; dir: string; name: string; bytes: Uint8Array; flowId?: string; timeoutMs?: number; chunkSize?: number; window?: number },
): Observable<DeviceFileEvent<typeof Command.FileUpload>> {
  const flowId = opts.flowId ?? newFlowId('up');
  const total = opts.bytes.length;
  return new Observable<DeviceFileEvent<typeof Command.FileUpload>>((subscriber) => {
    // Each `ready` (the first, and one per repeated request) begins the transfer again from the device's `next`.
    const ready$ = new ReplaySubject<void>(1);
    let sending: { unsubscribe(): void } | undefined;
    let bytes = 0;
    const subs: { unsubscribe(): void }[] = [];
    void sha256Hex(opts.bytes).then((sha256) => {
      if (subscriber.closed) return;
      subs.push(
        askOnFlow(port, Command.FileUpload, { sn: opts.sn, flowId, data: { path: opts.dir, name: opts.name, size: total, sha256 }, timeoutMs: opts.timeoutMs }, {
          next: (event) => {
            if (event.kind === 'result') {
              if (event.reply.result === Result.Success) subscriber.next({ kind: 'progress', bytes: event.reply.data.size, total });
              subscriber.next({ kind: 'done', reply: event.reply });
              subscriber.complete();
              return;
            }
            if (event.reply.data?.stage !== 'ready') return;
            ready$.next();
            if (sending) return;
            sending = sendFile(port, { flowId, bytes: opts.bytes, sha256, sn: opts.sn, chunkSize: opts.chunkSize, window: opts.window, begin$: ready$ }).subscribe({
              next: (p: TransferProgress) => {
                bytes = p.bytes;
                subscriber.next({ kind: 'progress', bytes: p.bytes, total: p.total });
              },
              error: (err: unknown) => subscriber.error(err),
            });
            subs.push(sending);
          },
          lost: () => subscriber.next({ kind: 'resuming', bytes, total }),
          error: (err) => subscriber.error(err),
        }),
      );
    });
    return () => subs.forEach((s) => s.unsubscribe());
  });
}

/**
 * Asks a device for a file it sends on a flow: a download (65603), a screenshot (65564) or a log
 * (65577). Emits progress as chunks arrive and completes with the device's final reply and, on success,
 * the file (its SHA-256 checked against the device's offer). When the console's socket drops it asks
 * again on the flow; the device re-begins its transfer and this side answers with the chunks it has.
 */
export function fileFromDevice<K extends OfferCommand>(port: TransferPort, opts: { sn: string; msgId: K; data?: SendOf<K>; flowId?: string; timeoutMs?: number }): Observable<DeviceFileEvent<K>> {
  const flowId = opts.flowId ?? newFlowId('dl');
  return new Observable<DeviceFileEvent<K>>((subscriber) => {
    let offer: DeviceFileOffer | undefined;
    let received: { bytes: Uint8Array; sha256: string } | undefined;
    let final: FinalReply<K> | undefined;
    const finish = () => {
      if (!final) return;
      if (final.result !== Result.Success) {
        subscriber.next({ kind: 'done', reply: final });
        subscriber.complete();
        return;
      }
      if (!received || !offer) return; // the device's reply can overtake the last chunk's delivery
      if (received.sha256 !== offer.sha256) {
        subscriber.next({ kind: 'done', reply: { ...final, result: Result.Fail, data: { message: 'SHA-256 mismatch' } } });
      } else {
        subscriber.next({ kind: 'done', reply: final, file: { name: offer.name, mime: offer.mime, bytes: received.bytes, sha256: received.sha256 } });
      }
      subscriber.complete();
    };
    // Bytes of distinct chunks: a resumed transfer sends some chunks twice.
    const seen = new Set<number>();
    let got = 0;
    const subs = [
      // Kept until the end, not just the first file: after a drop the device re-begins, and is told `done`.
      receiveFiles(port, { flowId })
        .pipe(filter((f) => f.flowId === flowId))
        .subscribe((f) => {
          received ??= f;
          finish();
        }),
      port.chunks$.pipe(filter((c) => c.flowId === flowId)).subscribe((c) => {
        if (seen.has(c.seq)) return;
        seen.add(c.seq);
        got += c.payload.length;
        if (offer) subscriber.next({ kind: 'progress', bytes: Math.min(got, offer.size), total: offer.size });
      }),
      askOnFlow(port, opts.msgId, { sn: opts.sn, flowId, data: opts.data, timeoutMs: opts.timeoutMs }, {
        next: (event) => {
          if (event.kind === 'progress') {
            const d = event.reply.data;
            if (d !== undefined && offer === undefined) {
              offer = d;
              subscriber.next({ kind: 'progress', bytes: 0, total: offer.size });
            }
            return;
          }
          final = event.reply;
          finish();
        },
        lost: () => subscriber.next({ kind: 'resuming', bytes: Math.min(got, offer?.size ?? got), total: offer?.size ?? 0 }),
        error: (err) => subscriber.error(err),
      }),
    ];
    return () => subs.forEach((s) => s.unsubscribe());
  });
}

/** A file a device hands to a console (a download, a screenshot, a log tail). */
export interface OfferedFile {
  readonly name: string;
  readonly mime: string;
  readonly bytes: Uint8Array;
}

/**
 * The device side of DOPS-3: offers a file on the job's flow (progress `{stage: 'sending', name, size,
 * sha256, mime}` to the newest request), sends it as a transfer and resolves once the console has it
 * all. A console that asks again after its socket dropped (XFER-4) hears the offer again and the transfer
 * re-begins from the console's `next`; so does this device's own reconnect.
 */
export async function offerFileOnFlow(
  engine: TransferPort,
  job: FlowJob,
  opts: { readonly flowId: string; readonly file: () => Promise<OfferedFile>; readonly progress: (request: Envelope, data: unknown) => void; readonly chunkSize?: number; readonly window?: number },
): Promise<{ name: string; size: number; sha256: string }> {
  let offer: DeviceFileOffer | undefined;
  const consoleBack$ = new Subject<void>();
  // Subscribed before anything is awaited, so a console that returns early is not missed: before the
  // offer exists it will hear it anyway; before the transfer subscribes, its first begin covers it.
  const back = job.rejoined$.subscribe(() => {
    if (!offer) return;
    opts.progress(job.request, offer);
    consoleBack$.next();
  });
  try {
    const file = await opts.file();
    offer = { stage: 'sending', name: file.name, size: file.bytes.length, sha256: await sha256Hex(file.bytes), mime: file.mime };
    opts.progress(job.request, offer);
    const ownReconnect$ = engine.connection$.pipe(filter((s) => s.status === 'open'));
    await lastValueFrom(
      sendFile(engine, { flowId: opts.flowId, bytes: file.bytes, sha256: offer.sha256, chunkSize: opts.chunkSize, window: opts.window, begin$: merge(ownReconnect$, consoleBack$) }).pipe(
        tap((p) => opts.progress(job.request, { stage: 'sending', bytes: p.bytes, total: p.total })),
      ),
      { defaultValue: undefined },
    );
    return { name: file.name, size: file.bytes.length, sha256: offer.sha256 };
  } finally {
    back.unsubscribe();
  }
}

/** One device file operation in progress, as its job sees it. */
export interface FlowJob {
  /** The newest request on the flow: progress goes to it (an older one's console socket is gone). */
  readonly request: Envelope;
  /** Emits each time a console asks again on the flow: it lost its socket and is back (XFER-4). */
  readonly rejoined$: Observable<Envelope>;
}

/**
 * The device side of XFER-4: one job per flow. A request on a flow whose job is running joins it (its
 * final reply is the job's outcome, and the job hears `rejoined$` to answer `ready` or offer its file
 * again); a request on a flow whose job has finished gets the remembered outcome, so a console that
 * missed the final reply hears it without the work being done twice.
 */
export class FlowJobs<T> {
  readonly #running = new Map<string, { readonly newest: { request: Envelope }; readonly rejoined: Subject<Envelope>; readonly outcome: Promise<T> }>();
  readonly #finished = new Map<string, T>();

  run(flowId: string, request: Envelope, start: (job: FlowJob) => Promise<T>): Promise<T> {
    const past = this.#finished.get(flowId);
    if (past !== undefined) return Promise.resolve(past);
    const running = this.#running.get(flowId);
    if (running) {
      running.newest.request = request;
      running.rejoined.next(request);
      return running.outcome;
    }
    const rejoined = new Subject<Envelope>();
    const newest = { request };
    const job: FlowJob = {
      get request() {
        return newest.request;
      },
      rejoined$: rejoined.asObservable(),
    };
    const outcome = Promise.resolve()
      .then(() => start(job))
      .then(
        (value) => {
          this.#finished.set(flowId, value);
          if (this.#finished.size > MAX_REMEMBERED_JOBS) this.#finished.delete(this.#finished.keys().next().value as string);
          return value;
        },
      )
      .finally(() => {
        this.#running.delete(flowId);
        rejoined.complete();
      });
    this.#running.set(flowId, { newest, rejoined, outcome });
    return outcome;
  }

  /** True while a job runs on the flow. */
  running(flowId: string): boolean {
    return this.#running.has(flowId);
  }
}

/** The last event of a device file operation: its outcome. */
export function lastFileEvent<K extends FileCommand>(events: Observable<DeviceFileEvent<K>>): Promise<Extract<DeviceFileEvent<K>, { kind: 'done' }>> {
  return firstValueFrom(events.pipe(filter((e): e is Extract<DeviceFileEvent<K>, { kind: 'done' }> => e.kind === 'done')));
}
