import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Command, finalReply, type RequestEvent, type RequestOptions, Result, type ResultCode } from '../../protocol/index.ts';
import { ClickGuard } from '../../src/devices/click-guard.ts';
import { BULK_WINDOW, BulkRun, parsePackages } from '../../src/pages/remote-management/bulk-run.ts';

describe('click guard', () => {
  it("refuses the same command on the same device within the window, and nothing else", () => {
    let now = 0;
    const guard = new ClickGuard(1_000, () => now);
    expect(guard.allow('65558:A')).toBe(true);
    now = 400;
    expect(guard.allow('65558:A')).toBe(false);
    expect(guard.allow('65558:B')).toBe(true);
    expect(guard.allow('65559:A')).toBe(true);
    now = 1_000;
    expect(guard.allow('65558:A')).toBe(true);
  });
});

describe('whitelist package lists', () => {
  it('treats Chinese commas and spaces as commas and drops empties and repeats', () => {
    expect(parsePackages('com.a，com.b  com.c,,com.a\ncom.d')).toEqual(['com.a', 'com.b', 'com.c', 'com.d']);
    expect(parsePackages(' ， ')).toEqual([]);
  });
});

/** An engine whose requests the test answers by hand. */
class ManualEngine {
  readonly pending = new Map<string, (result: ResultCode, data?: unknown) => void>();
  readonly sent: { msgId: number; options: RequestOptions }[] = [];
  request<K extends number>(msgId: K, options: RequestOptions<K> = {}): Observable<RequestEvent<K>> {
    return new Observable<RequestEvent<K>>((sub) => {
      this.sent.push({ msgId, options });
      this.pending.set(options.sn ?? '', (result, data) => {
        const reply = finalReply(msgId, { msgId, sn: options.sn, cid: 'c', result, data });
        sub.next({ kind: 'result', reply });
        sub.complete();
      });
    });
  }
  answer(sn: string, result: ResultCode, data?: unknown): void {
    const settle = this.pending.get(sn);
    this.pending.delete(sn);
    settle?.(result, data);
  }
}

describe('bulk run', () => {
  it('keeps at most the window in flight, records each outcome as it arrives, and lists the failures for a retry', () => {
    const engine = new ManualEngine();
    const sns = Array.from({ length: BULK_WINDOW + 50 }, (_, i) => `D${i}`);
    const run = new BulkRun(engine, Command.Reboot, sns);
    run.start();
    expect(engine.sent).toHaveLength(BULK_WINDOW);
    expect(run.outcome('D0')).toEqual({ state: 'sent' });
    expect(run.outcome(`D${BULK_WINDOW}`)).toEqual({ state: 'waiting' });
    engine.answer('D0', Result.Success);
    engine.answer('D1', Result.DeviceOffline);
    engine.answer('D2', Result.Fail, { message: 'Linux devices cannot do this' });
    expect(engine.sent).toHaveLength(BULK_WINDOW + 3);
    expect(run.outcome('D1')).toEqual({ state: 'done', result: Result.DeviceOffline, message: undefined });
    expect(run.outcome('D2')).toEqual({ state: 'done', result: Result.Fail, message: 'Linux devices cannot do this' });
    for (const sn of sns.slice(3)) engine.answer(sn, Result.Success);
    expect(run.summary).toEqual({ total: sns.length, done: sns.length, ok: sns.length - 2, failed: 2 });
    expect(run.failed).toEqual(['D1', 'D2']);
    expect(engine.sent.every((s) => s.msgId === Command.Reboot)).toBe(true);
  });
});
