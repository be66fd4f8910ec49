import { filter, Observable, type Subscription } from 'rxjs';
import { Command } from '../catalogue/commands.ts';
import { ackData, beginData } from '../catalogue/command-map.ts';
import { decode } from '../catalogue/decode.ts';
import type { AckData, BeginData } from '../catalogue/payloads.ts';
import { Result } from '../catalogue/enums.ts';
import type { ConnectionState } from '../connection.ts';
import type { RequestEvent, RequestOptions } from '../engine.ts';
import type { ResultCode } from '../catalogue/enums.ts';
import type { Chunk } from './chunk-frame.ts';
import type { Envelope } from '../envelope.ts';
import { ProtocolError, ErrorCode } from '../errors.ts';
import { ChunkReceiver, type TransferManifest, type TransferProgress } from './chunk-receiver.ts';
import { ChunkSender } from './chunk-sender.ts';
import { sha256Hex } from './sha256.ts';

/** Chunk size and window defaults: 64 KiB x 16 keeps 1 MiB in flight, enough to fill a LAN link. */
export const DEFAULT_CHUNK_SIZE = 64 * 1024;
export const DEFAULT_WINDOW = 16;
const MAX_REMEMBERED = 1_000;

/**
 * What a transfer needs of an engine. ProtocolEngine has it; so does the browser's worker client, so the
 * same transfer code runs on devices, in Node and in the console.
 */
export interface TransferPort {
  readonly connection$: Observable<ConnectionState>;
  readonly messages$: Observable<Envelope>;
  readonly chunks$: Observable<Chunk>;
  flow(flowId: string): Observable<Envelope>;
  request<K extends number>(msgId: K, options?: RequestOptions<K>): Observable<RequestEvent<K>>;
  send(env: Envelope): void;
  sendChunk(chunk: Chunk): void;
  reply(request: Envelope, result: ResultCode, data?: unknown): void;
}

export interface SendFileOptions {
  readonly flowId: string;
  readonly bytes: Uint8Array;
  /** Device the file is for, when sent through the gateway. */
  readonly sn?: string;
  readonly chunkSize?: number;
  readonly window?: number;
  /**
   * When the transfer (re)begins: each emission sends TransferBegin, and the receiver's answer says where
   * to continue. Default: every time this side's connection opens (it resumes after its own reconnect).
   * A device gives it its own reconnects merged with a console's return (XFER-4); a console uploading
   * gives it the device's `ready` replies, so it never begins before its flow is bound again.
   */
  readonly begin$?: Observable<unknown>;
  /**
   * The bytes' SHA-256 (lowercase hex) when the caller has it already (it announced it in its offer or
   * request): hashing a large file again would delay the first chunk by as long again.
   */
  readonly sha256?: string;
}

/** A transfer failed for good (the receiver reported a checksum mismatch or refused it). */
export class TransferError extends ProtocolError {
  constructor(message: string) {
    super(ErrorCode.Decode, message);
    this.name = 'TransferError';
  }
}

/**
 * Sends a file as chunks with a bounded window, emitting progress as the receiver acknowledges, and
 * completing once it reports the file whole and verified. Each time it (re)begins (after a reconnect of
 * either end) it asks the receiver where it stopped (TransferBegin answers with `next`) and resumes there.
 */
export function sendFile(engine: TransferPort, opts: SendFileOptions): Observable<TransferProgress> {
  return new Observable<TransferProgress>((subscriber) => {
    const window = opts.window ?? DEFAULT_WINDOW;
    const sender = new ChunkSender(opts.flowId, opts.bytes, opts.chunkSize ?? DEFAULT_CHUNK_SIZE, window);
    const subs: Subscription[] = [];
    let begun = false;
    const pump = () => {
      if (!begun) return;
      try {
        for (const chunk of sender.take()) engine.sendChunk(chunk);
      } catch {
        begun = false; // disconnected: the next open resumes
      }
    };
    const onAck = (env: Envelope) => {
      const ack = decode(ackData, env.data);
      if (!ack) return;
      if (ack.error) {
        subscriber.error(new TransferError(ack.error));
        return;
      }
      sender.ack(ack.next);
      subscriber.next(sender.progress);
      if (ack.done) subscriber.complete();
      else pump();
    };
    void (opts.sha256 !== undefined ? Promise.resolve(opts.sha256) : sha256Hex(opts.bytes)).then((sha256) => {
      if (subscriber.closed) return;
      const begin: BeginData = { size: sender.manifest.size, chunkSize: sender.manifest.chunkSize, window, sha256 };
      subs.push(
        engine.flow(opts.flowId).pipe(filter((e) => e.msgId === Command.ChunkAck)).subscribe(onAck),
        (opts.begin$ ?? engine.connection$.pipe(filter((s) => s.status === 'open'))).subscribe(() => {
          engine.request(Command.TransferBegin, { flowId: opts.flowId, sn: opts.sn, data: begin }).subscribe({
            next: (event) => {
              if (event.kind !== 'result') return;
              if (event.reply.result !== Result.Success) {
                const why = event.reply.data.message;
                subscriber.error(new TransferError(typeof why === 'string' && why !== '' ? why : `Receiver refused the transfer (result ${event.reply.result ?? ''})`));
                return;
              }
              const at = event.reply.data;
              sender.resumeFrom(at.next);
              if (at.done) {
                // The file arrived before the connection dropped; only the final acknowledgement was lost.
                subscriber.next(sender.progress);
                subscriber.complete();
                return;
              }
              begun = true;
              pump();
            },
            error: () => undefined, // a lost connection resumes on the next open
          });
        }),
      );
    });
    return () => subs.forEach((s) => s.unsubscribe());
  });
}

/** A file that arrived whole and matched its SHA-256. */
export interface ReceivedFile {
  readonly flowId: string;
  readonly bytes: Uint8Array;
  readonly sha256: string;
}

/** Why a receiver refuses a TransferBegin its `accept` turned down (XFER-1). */
export const TRANSFER_NOT_EXPECTED = 'No transfer of this size is expected on this flow';
/** Why a receiver refuses a TransferBegin whose data is not a manifest. */
export const TRANSFER_BEGIN_INVALID = 'Transfer begin needs size, chunkSize, window and sha256';
/** The error of a whole file whose SHA-256 differs from the announced one (XFER-2). */
export const SHA256_MISMATCH = 'SHA-256 mismatch';

/**
 * Receives files offered to this engine: answers TransferBegin with where to (re)start, reassembles
 * chunks, acknowledges every half window (or every `ackEvery` chunks if fewer), verifies the SHA-256
 * and emits each whole file.
 * `accept` may refuse an offer (for example over a size cap); refusals answer result 1 with a message.
 * With `flowId`, only that flow's offers are this receiver's: others are left unanswered for the receiver
 * of their own flow on the same engine (a console downloading from several devices at once runs one
 * receiver per download; answering another's offer would refuse it before its own receiver accepts).
 * A transfer that fails (a chunk that does not fit, a SHA-256 mismatch) is acknowledged `{next: 0,
 * error}` and forgotten, and `failed` hears it, so whoever waits for the file can end its request at once
 * (XFER-2) instead of waiting for a timeout.
 */
export function receiveFiles(
  engine: TransferPort,
  options: { ackEvery?: number; accept?: (manifest: TransferManifest) => boolean; failed?: (flowId: string, error: string) => void; flowId?: string } = {},
): Observable<ReceivedFile> {
  return new Observable<ReceivedFile>((subscriber) => {
    const transfers = new Map<string, { receiver: ChunkReceiver; sha256: string; ackEvery: number; sinceAck: number }>();
    // Finished flows are remembered, so a sender that missed the final acknowledgement learns it is done
    // instead of sending the file again. Bounded: the oldest are forgotten first.
    const finished = new Map<string, AckData>();
    const remember = (flowId: string, data: AckData) => {
      finished.set(flowId, data);
      if (finished.size > MAX_REMEMBERED) finished.delete(finished.keys().next().value as string);
    };
    const ack = (flowId: string, data: AckData) => {
      try {
        engine.send({ msgId: Command.ChunkAck, flowId, data });
      } catch {
        // disconnected: the sender resumes through TransferBegin
      }
    };
    const subs = [
      // A reply to someone's TransferBegin that outlived its request (a socket dropped) is not an offer.
      engine.messages$.pipe(filter((e) => e.msgId === Command.TransferBegin && e.flowId !== undefined && e.result === undefined && (options.flowId === undefined || e.flowId === options.flowId))).subscribe((env) => {
        const flowId = env.flowId as string;
        const begin = decode(beginData, env.data);
        const manifest = begin && { flowId, size: begin.size, chunkSize: begin.chunkSize };
        const past = finished.get(flowId);
        if (past) {
          try {
            engine.reply(env, Result.Success, past);
          } catch {
            // disconnected; asked again on reconnect
          }
          return;
        }
        let t = transfers.get(flowId);
        let refusal = TRANSFER_BEGIN_INVALID;
        const valid = begin !== undefined && manifest !== undefined && typeof begin.sha256 === 'string' && Number.isInteger(begin.window) && begin.window >= 1;
        if (!t && valid && !(options.accept?.(manifest) ?? true)) refusal = TRANSFER_NOT_EXPECTED;
        else if (!t && valid) {
          try {
            const ackEvery = Math.min(options.ackEvery ?? Number.MAX_SAFE_INTEGER, Math.max(1, Math.floor(begin.window / 2)));
            t = { receiver: new ChunkReceiver(manifest), sha256: begin.sha256, ackEvery, sinceAck: 0 };
            transfers.set(flowId, t);
          } catch {
            t = undefined;
          }
        }
        try {
          if (t) engine.reply(env, Result.Success, { next: t.receiver.progress.next });
          else engine.reply(env, Result.Fail, { message: refusal });
        } catch {
          // disconnected before answering; the sender asks again
        }
      }),
      engine.chunks$.subscribe((chunk) => {
        if (options.flowId !== undefined && chunk.flowId !== options.flowId) return;
        const t = transfers.get(chunk.flowId);
        if (!t) return;
        try {
          if (!t.receiver.accept(chunk)) return;
        } catch (err) {
          const error = err instanceof Error ? err.message : String(err);
          transfers.delete(chunk.flowId);
          ack(chunk.flowId, { next: 0, error });
          options.failed?.(chunk.flowId, error);
          return;
        }
        if (t.receiver.complete) {
          transfers.delete(chunk.flowId);
          const bytes = t.receiver.bytes();
          void sha256Hex(bytes).then((sha) => {
            if (sha === t.sha256) {
              const final: AckData = { next: t.receiver.progress.next, done: true };
              remember(chunk.flowId, final);
              ack(chunk.flowId, final);
              subscriber.next({ flowId: chunk.flowId, bytes, sha256: sha });
            } else {
              ack(chunk.flowId, { next: 0, error: SHA256_MISMATCH });
              options.failed?.(chunk.flowId, SHA256_MISMATCH);
            }
          });
        } else if (++t.sinceAck >= t.ackEvery) {
          t.sinceAck = 0;
          ack(chunk.flowId, { next: t.receiver.progress.next });
        }
      }),
    ];
    return () => subs.forEach((s) => s.unsubscribe());
  });
}
