import type { PushCampaignEvent, PushTargetEvent } from '../../protocol/api/campaigns.ts';
import { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from '../../protocol/index.ts';

/** Where a push stream is: reading, waiting to reconnect after a drop, or given up (the session was refused). */
export type PushStreamStatus = 'live' | 'reconnecting' | 'stopped';

export interface FollowPushesOptions {
  /**
   * Called with 'live' on every (re)connection, when the server's hello arrives: changes made while no
   * stream was open are not replayed, so a caller reads again what it shows. 'reconnecting' after a drop.
   */
  readonly onStatus?: (status: PushStreamStatus) => void;
  /** Reconnect delays; the realtime socket's (2 s up to 30 s, jittered) by default. */
  readonly backoff?: BackoffPolicy;
  readonly random?: () => number;
}

/** Session refusals (login expired, permission denied) end the stream instead of retrying it. */
const REFUSED_CODES = new Set<unknown>([3, '3', 40003]);

/**
 * Reads the push stream (newline-delimited JSON) that `open` requests, until `signal` aborts; a drop or a
 * failed request is followed by a new request after a backoff delay, reset by each server hello.
 */
export async function followPushStream(
  open: (signal: AbortSignal) => Promise<Response>,
  onEvent: (e: PushTargetEvent | PushCampaignEvent) => void,
  signal: AbortSignal,
  options: FollowPushesOptions = {},
): Promise<void> {
  const policy = options.backoff ?? DEFAULT_BACKOFF;
  const random = options.random ?? Math.random;
  let attempt = 0;
  while (!signal.aborted) {
    try {
      const res = await open(signal);
      // A refusal is a JSON envelope, not a stream.
      if (!(res.headers.get('content-type') ?? '').includes('ndjson')) {
        const envelope = (await res.json().catch(() => ({}))) as { code?: unknown };
        if (REFUSED_CODES.has(envelope.code)) {
          options.onStatus?.('stopped');
          return;
        }
      } else if (res.body) {
        await readLines(res.body, (line) => {
          const event = JSON.parse(line) as { type: string };
          if (event.type === 'hello') {
            attempt = 0;
            options.onStatus?.('live');
          } else if (event.type === 'target' || event.type === 'campaign') onEvent(event as PushTargetEvent | PushCampaignEvent);
        });
      }
    } catch {
      // A dropped connection or an unreadable line: both are followed by a new connection.
    }
    if (signal.aborted) return;
    options.onStatus?.('reconnecting');
    await abortableDelay(backoffDelay(attempt++, policy, random), signal);
  }
}

async function readLines(body: NonNullable<Response['body']>, onLine: (line: string) => void): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line) onLine(line);
    }
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
