import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Command, type DeviceListFilter, finalReply, LINUX_CANNOT, type RequestEvent, type RequestOptions, Result } from '../../../protocol/index.ts';
import { BulkRun, linuxAmong } from './bulk-run.ts';

/** An engine that records what is sent and answers every request with success at once. */
class AnsweringEngine {
  readonly sent: string[] = [];
  request<K extends number>(msgId: K, options: RequestOptions<K> = {}): Observable<RequestEvent<K>> {
    return new Observable<RequestEvent<K>>((sub) => {
      this.sent.push(options.sn ?? '');
      sub.next({ kind: 'result', reply: finalReply(msgId, { msgId, sn: options.sn, cid: 'c', result: Result.Success, data: { message: 'done' } }) });
      sub.complete();
    });
  }
}

describe('bulk run pre-check', () => {
  it('refuses Linux devices before sending a command they cannot do, with the spec text as their outcome', () => {
    const engine = new AnsweringEngine();
    const run = new BulkRun(engine, Command.ClearData, ['A1', 'L1', 'A2', 'L2'], {}, new Set(['L1', 'L2', 'NOT-TARGETED']));
    expect(run.outcome('L1')).toEqual({ state: 'done', result: Result.Fail, message: LINUX_CANNOT });
    expect(run.summary).toEqual({ total: 4, done: 2, ok: 0, failed: 2 });
    run.start();
    expect(engine.sent).toEqual(['A1', 'A2']);
    expect(run.summary).toEqual({ total: 4, done: 4, ok: 2, failed: 2 });
    expect(run.failed).toEqual(['L1', 'L2']);
  });

  it('sends a command Linux devices can do to them too', () => {
    const engine = new AnsweringEngine();
    const run = new BulkRun(engine, Command.Reboot, ['A1', 'L1'], undefined, new Set(['L1']));
    run.start();
    expect(engine.sent).toEqual(['A1', 'L1']);
    expect(run.summary.ok).toBe(2);
  });

  it('asks the server for Linux devices only when the command is refused on Linux and the query can hold Linux devices', async () => {
    const asked: DeviceListFilter[] = [];
    const select = (f: DeviceListFilter) => {
      asked.push(f);
      return Promise.resolve({ sns: ['L1'] });
    };
    expect(await linuxAmong(Command.Reboot, {}, select)).toEqual(new Set());
    expect(await linuxAmong(Command.ClearData, { systemType: 'android' }, select)).toEqual(new Set());
    expect(asked).toEqual([]);
    expect(await linuxAmong(Command.ClearData, { model: 'K9' }, select)).toEqual(new Set(['L1']));
    expect(asked).toEqual([{ model: 'K9', systemType: 'linux' }]);
  });
});
