// The resumable upload client (tus, /upload): not a call of one area but what the content, custom-firmware
// and order-demand dialogs share, so it sits beside the request helper as console infrastructure.
import * as tus from 'tus-js-client';
import type { MessageParams } from '../../protocol/index.ts';
import { i18next } from '../i18n/index.ts';
import { serverMessage } from './request.ts';
import { session } from '../state/session.ts';

export type UploadKind = 'firmware' | 'app' | 'file' | 'logo' | 'boot_animation' | 'wallpaper' | 'attachment';

export interface UploadHandle {
  /** Resolves with the upload URL the add calls take. */
  readonly done: Promise<string>;
  abort(): void;
}

/** What an upload's connection is doing, for the dialog to say: waiting to retry, or sending again. */
export type UploadNetworkState = { readonly state: 'waiting'; readonly attempt: number } | { readonly state: 'resumed'; readonly offset: number; readonly total: number };

/**
 * Waits between attempts after a failed request: capped exponential backoff, 1 s doubling to 30 s, for about
 * a quarter of an hour in all. An upload outlives a short outage without the user doing anything; a longer
 * one ends with a message and the fingerprint kept, so choosing the same file continues it.
 */
export const UPLOAD_RETRY_DELAYS: readonly number[] = [0, 1_000, 2_000, 4_000, 8_000, 15_000, ...Array<number>(30).fill(30_000)];

/**
 * Retries a request that got no answer (network down, server restarting) or an answer that may pass (5xx,
 * 409 offset conflict, 423 locked). tus's own default also gives up while the browser says it is offline,
 * which is exactly when the upload should wait; a 4xx refusal (format, size, rights) is final.
 */
export function shouldRetryUpload(status: number | undefined): boolean {
  if (status === undefined || status === 0) return true;
  return status >= 500 || status === 409 || status === 423;
}

/**
 * A resumable upload (tus). The fingerprint of an unfinished upload is kept in localStorage, so choosing
 * the same file after a page reload continues where it stopped, and the progress bar starts there. A
 * dropped connection is retried with backoff (UPLOAD_RETRY_DELAYS) and at once when the browser reports it
 * is online again; each retry asks the server for its offset (HEAD) and sends only the rest. `onNetwork`
 * hears "waiting" when a retry is scheduled and "resumed" when bytes flow again.
 */
export function uploadFile(file: File, kind: UploadKind, onProgress: (sent: number, total: number) => void, onNetwork: (state: UploadNetworkState) => void = () => undefined): UploadHandle {
  let upload: tus.Upload | undefined;
  let waiting = false;
  let finished = false;
  const onOnline = () => {
    // Back online while a retry waits out its delay: go now. abort() clears tus's retry timer; start() with
    // the known upload URL resumes from the server's offset.
    if (!waiting || !upload || finished) return;
    const current = upload;
    void current.abort(false).then(() => current.start());
  };
  window.addEventListener('online', onOnline);
  const done = new Promise<string>((resolve, reject) => {
    const settle = () => {
      finished = true;
      window.removeEventListener('online', onOnline);
    };
    upload = new tus.Upload(file, {
      endpoint: '/upload/files',
      headers: { 'X-Token': session.token ?? '' },
      metadata: { kind, filename: file.name, filetype: file.type },
      retryDelays: [...UPLOAD_RETRY_DELAYS],
      removeFingerprintOnSuccess: true,
      chunkSize: 16 * 1024 * 1024,
      onShouldRetry: (err, attempt) => {
        const retry = shouldRetryUpload(err.originalResponse?.getStatus());
        if (retry) {
          waiting = true;
          onNetwork({ state: 'waiting', attempt: attempt + 1 });
        }
        return retry;
      },
      onProgress: (sent, total) => {
        if (waiting) {
          waiting = false;
          onNetwork({ state: 'resumed', offset: sent, total });
        }
        onProgress(sent, total);
      },
      onSuccess: () => (settle(), resolve(upload?.url ?? '')),
      onError: (err) => {
        settle();
        const response = (err as tus.DetailedError).originalResponse;
        // No answer at all: tus's text ("tus: failed to upload chunk ... [object ProgressEvent]") means nothing
        // to a user; say what happened and how to continue.
        let message = response && response.getStatus() > 0 ? err.message : i18next.t('content.uploadNetworkFailed');
        try {
          const env = JSON.parse(response?.getBody() ?? '') as { message?: string; key?: string; params?: MessageParams };
          if (env.key !== undefined || env.message !== undefined) message = serverMessage(env);
        } catch {
          // not an envelope: keep the text above
        }
        if (message.startsWith('tus:')) message = i18next.t('content.uploadFailed');
        reject(new Error(message));
      },
    });
    const started = upload;
    started.findPreviousUploads().then(
      (previous) => {
        const last = previous[0];
        if (last) started.resumeFromPreviousUpload(last);
        started.start();
      },
      () => started.start(),
    );
  });
  return {
    done,
    abort: () => {
      finished = true;
      window.removeEventListener('online', onOnline);
      void upload?.abort();
    },
  };
}

