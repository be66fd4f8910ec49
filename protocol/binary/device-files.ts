import { filter, firstValueFrom, Observable, take } from 'rxjs';
import { Command } from '../catalogue/commands.ts';
import { Result } from '../catalogue/enums.ts';
import type { DeviceFileOffer, FileWrittenReply } from '../catalogue/payloads.ts';
import type { Envelope } from '../envelope.ts';
import type { TransferProgress } from './chunk-receiver.ts';
import { sha256Hex } from './sha256.ts';
import { receiveFiles, sendFile, type TransferPort } from './transfer.ts';

/** What a console sees of a device file operation: progress, then the outcome. */
export type DeviceFileEvent =
  | { readonly kind: 'progress'; readonly bytes: number; readonly total: number }
  | { readonly kind: 'done'; readonly reply: Envelope; readonly file?: { readonly name: string; readonly mime: string; readonly bytes: Uint8Array; readonly sha256: string } };

const FLOW_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh flow id with a readable prefix (`up`, `dl`, `sh`, ...). */
export function newFlowId(prefix: string, random: () => number = Math.random): string {
  let id = `${prefix}-`;
  for (let i = 0; i < 16; i++) id += FLOW_ALPHABET[Math.floor(random() * FLOW_ALPHABET.length)];
  return id;
}

/**
 * Uploads bytes into a device folder (65602): asks the device to get ready, sends the bytes as a
 * transfer on the same flow and completes with the device's final reply once it has written the file.
 * A final reply other than 0 (or a refused transfer) completes without sending more.
 */
export function uploadToDevice(port: TransferPort, opts: { sn: string; dir: string; name: string; bytes: Uint8Array; flowId?: string; timeoutMs?: number }): Observable<DeviceFileEvent> {
  const flowId = opts.flowId ?? newFlowId('up');
  return new Observable<DeviceFileEvent>((subscriber) => {
    let sending = false;
    const subs: { unsubscribe(): void }[] = [];
    void sha256Hex(opts.bytes).then((sha256) => {
      if (subscriber.closed) return;
      subs.push(
        port
          .request(Command.FileUpload, { sn: opts.sn, flowId, data: { path: opts.dir, name: opts.name, size: opts.bytes.length, sha256 }, timeoutMs: opts.timeoutMs })
          .subscribe({
            next: (event) => {
              if (event.kind === 'result') {
                const written = event.reply.data as FileWrittenReply | undefined;
                if (event.reply.result === Result.Success) subscriber.next({ kind: 'progress', bytes: written?.size ?? opts.bytes.length, total: opts.bytes.length });
                subscriber.next({ kind: 'done', reply: event.reply });
                subscriber.complete();
                return;
              }
              if (sending || (event.reply.data as { stage?: string } | undefined)?.stage !== 'ready') return;
              sending = true;
              subs.push(
                sendFile(port, { flowId, bytes: opts.bytes, sn: opts.sn }).subscribe({
                  next: (p: TransferProgress) => subscriber.next({ kind: 'progress', bytes: p.bytes, total: p.total }),
                  error: (err: unknown) => subscriber.error(err),
                }),
              );
            },
            error: (err: unknown) => subscriber.error(err),
          }),
      );
    });
    return () => subs.forEach((s) => s.unsubscribe());
  });
}

/**
 * Asks a device for a file it sends on a flow: a download (65603), a screenshot (65564) or a log
 * (65577). Emits progress as chunks arrive and completes with the device's final reply and, on success,
 * the file (its SHA-256 checked against the device's offer).
 */
export function fileFromDevice(port: TransferPort, opts: { sn: string; msgId: number; data?: unknown; flowId?: string; timeoutMs?: number }): Observable<DeviceFileEvent> {
  const flowId = opts.flowId ?? newFlowId('dl');
  return new Observable<DeviceFileEvent>((subscriber) => {
    let offer: DeviceFileOffer | undefined;
    let received: { bytes: Uint8Array; sha256: string } | undefined;
    let final: Envelope | undefined;
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
    let got = 0;
    const subs = [
      receiveFiles(port, { accept: (m) => m.flowId === flowId })
        .pipe(filter((f) => f.flowId === flowId), take(1))
        .subscribe((f) => {
          received = f;
          finish();
        }),
      port.chunks$.pipe(filter((c) => c.flowId === flowId)).subscribe((c) => {
        got += c.payload.length;
        if (offer) subscriber.next({ kind: 'progress', bytes: Math.min(got, offer.size), total: offer.size });
      }),
      port.request(opts.msgId, { sn: opts.sn, flowId, data: opts.data ?? {}, timeoutMs: opts.timeoutMs }).subscribe({
        next: (event) => {
          if (event.kind === 'progress') {
            const d = event.reply.data as Partial<DeviceFileOffer> | undefined;
            if (d?.stage === 'sending' && typeof d.sha256 === 'string' && offer === undefined) {
              offer = d as DeviceFileOffer;
              subscriber.next({ kind: 'progress', bytes: 0, total: offer.size });
            }
            return;
          }
          final = event.reply;
          finish();
        },
        error: (err: unknown) => subscriber.error(err),
      }),
    ];
    return () => subs.forEach((s) => s.unsubscribe());
  });
}

/** The last event of a device file operation: its outcome. */
export function lastFileEvent(events: Observable<DeviceFileEvent>): Promise<Extract<DeviceFileEvent, { kind: 'done' }>> {
  return firstValueFrom(events.pipe(filter((e): e is Extract<DeviceFileEvent, { kind: 'done' }> => e.kind === 'done')));
}
