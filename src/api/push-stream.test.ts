import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PushTargetEvent } from '../../protocol/api/campaigns.ts';
import { followPushStream, type PushStreamStatus } from './push-stream.ts';

/** A push stream response: the given NDJSON lines, then either the end (a drop) or nothing more. */
function streamResponse(lines: readonly object[], open: boolean): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(lines.map((l) => `${JSON.stringify(l)}\n`).join('')));
      if (!open) controller.close();
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'application/x-ndjson' } });
}

const target: PushTargetEvent = { type: 'target', campaignId: 1, orgId: 1, sn: 'A', pushResult: 1, downloadState: 4, progress: 100, installResult: 0, message: '', updateTime: 5 };

describe('push stream', () => {
  afterEach(() => void vi.useRealTimers());

  it('reconnects after the stream drops, after the backoff delay, and reports each connection', async () => {
    vi.useFakeTimers();
    const responses = [streamResponse([{ type: 'hello' }, target], false), streamResponse([{ type: 'hello' }], true)];
    const open = vi.fn(() => Promise.resolve(responses.shift() ?? streamResponse([], true)));
    const statuses: PushStreamStatus[] = [];
    const events: unknown[] = [];
    const stop = new AbortController();
    void followPushStream(open, (e) => events.push(e), stop.signal, { onStatus: (s) => statuses.push(s), backoff: { initialMs: 2_000, maxMs: 30_000, jitter: 0 } });
    await vi.advanceTimersByTimeAsync(0);
    expect(statuses).toEqual(['live', 'reconnecting']);
    expect(events).toEqual([target]);
    // Not before the first delay (attempt 0's ceiling, 4 s, without jitter).
    await vi.advanceTimersByTimeAsync(3_999);
    expect(open).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(open).toHaveBeenCalledTimes(2);
    expect(statuses).toEqual(['live', 'reconnecting', 'live']);
    stop.abort();
  });

  it('retries a failed request too, and stops waiting when aborted', async () => {
    vi.useFakeTimers();
    const open = vi.fn(() => Promise.reject(new TypeError('Failed to fetch')));
    const statuses: PushStreamStatus[] = [];
    const stop = new AbortController();
    const done = followPushStream(open, () => undefined, stop.signal, { onStatus: (s) => statuses.push(s), backoff: { initialMs: 1_000, maxMs: 1_000, jitter: 0 } });
    await vi.advanceTimersByTimeAsync(2_500);
    expect(open).toHaveBeenCalledTimes(3);
    stop.abort();
    await done;
    expect(statuses).toEqual(['reconnecting', 'reconnecting', 'reconnecting']);
  });

  it('stops for good when the server refuses the session', async () => {
    const open = vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 3, data: null, message: 'Permission denied or Session expire' }), { headers: { 'Content-Type': 'application/json' } })));
    const statuses: PushStreamStatus[] = [];
    await followPushStream(open, () => undefined, new AbortController().signal, { onStatus: (s) => statuses.push(s) });
    expect(statuses).toEqual(['stopped']);
    expect(open).toHaveBeenCalledTimes(1);
  });
});
