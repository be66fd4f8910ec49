import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { type TargetPatch, type TargetWho, TargetWriter, type WrittenTarget } from './target-writer.ts';

type Row = { id: number; who: TargetWho; patch: TargetPatch };

/** A writer over a fake table: each write is recorded and held until the test lets it commit. */
function harness(opts: { maxRows?: number; closed?: Set<number> } = {}) {
  const clock = new FakeClock();
  const writes: { rows: readonly Row[]; commit: () => void; fail: (err: Error) => void }[] = [];
  const written: WrittenTarget[] = [];
  const writer = new TargetWriter({
    clock,
    flushMs: 5,
    maxRows: opts.maxRows ?? 500,
    log: { warn: () => {} },
    onWritten: (rows) => written.push(...rows),
    write: (rows) =>
      new Promise((resolve, reject) => {
        writes.push({
          rows,
          fail: reject,
          commit: () =>
            resolve(
              rows
                .filter((r) => !opts.closed?.has(r.id))
                .map((r) => ({ id: r.id, who: r.who, phase: r.patch.phase ?? 'sent', pushResult: r.patch.push_result ?? 2, downloadState: r.patch.download_state ?? 0, progress: r.patch.progress ?? 0, installResult: r.patch.install_result ?? 0, message: r.patch.message ?? '', updateTime: r.patch.updated_at })),
            ),
        });
      }),
  });
  const settle = () => new Promise((r) => setImmediate(r));
  return { clock, writes, written, writer, settle };
}

const who = (sn: string): TargetWho => ({ campaignId: 1, orgId: 7, sn });

describe('TargetWriter (write-behind push progress)', () => {
  it('coalesces reports of one target into one row and acknowledges each only once the row is committed', async () => {
    const h = harness();
    const acks: boolean[] = [];
    void h.writer.put(1, who('A'), { phase: 'sent', download_state: 1, progress: 25, updated_at: 1 }).then((ok) => acks.push(ok));
    void h.writer.put(1, who('A'), { download_state: 1, progress: 50, updated_at: 2 }).then((ok) => acks.push(ok));
    void h.writer.put(2, who('B'), { phase: 'sent', progress: 10, updated_at: 2 }).then((ok) => acks.push(ok));
    h.clock.advance(4);
    expect(h.writes).toHaveLength(0);
    h.clock.advance(1);
    expect(h.writes).toHaveLength(1);
    expect(h.writes[0]?.rows).toEqual([
      { id: 1, who: who('A'), patch: { phase: 'sent', download_state: 1, progress: 50, updated_at: 2 } },
      { id: 2, who: who('B'), patch: { phase: 'sent', progress: 10, updated_at: 2 } },
    ]);
    await h.settle();
    expect(acks).toEqual([]);
    h.writes[0]?.commit();
    await h.settle();
    expect(acks).toEqual([true, true, true]);
    expect(h.written.map((w) => [w.who.sn, w.progress])).toEqual([
      ['A', 50],
      ['B', 10],
    ]);
  });

  it('never lets a later open report replace a closing one before it is written', async () => {
    const h = harness();
    void h.writer.put(1, who('A'), { phase: 'done', push_result: 1, progress: 100, updated_at: 1 });
    void h.writer.put(1, who('A'), { phase: 'sent', progress: 75, updated_at: 2 });
    h.clock.advance(5);
    expect(h.writes[0]?.rows[0]?.patch).toEqual({ phase: 'done', push_result: 1, progress: 100, updated_at: 1 });
  });

  it('lets an "under" patch fill only what a queued report leaves unset (accepted after the first report was read)', async () => {
    const h = harness();
    void h.writer.put(1, who('A'), { phase: 'sent', download_state: 1, progress: 25, updated_at: 2 });
    void h.writer.put(1, who('A'), { phase: 'sent', attempts: 1, download_state: 0, progress: 0, message: '', updated_at: 1 }, 'under');
    h.clock.advance(5);
    expect(h.writes[0]?.rows[0]?.patch).toEqual({ phase: 'sent', attempts: 1, download_state: 1, progress: 25, message: '', updated_at: 2 });
  });

  it('answers false for a row that was no longer open, and rejects every waiter of a failed batch', async () => {
    const h = harness({ closed: new Set([2]) });
    const first = Promise.all([h.writer.put(1, who('A'), { progress: 1, updated_at: 1 }), h.writer.put(2, who('B'), { progress: 1, updated_at: 1 })]);
    h.clock.advance(5);
    h.writes[0]?.commit();
    expect(await first).toEqual([true, false]);
    const second = h.writer.put(3, who('C'), { progress: 1, updated_at: 1 });
    h.clock.advance(5);
    h.writes[1]?.fail(new Error('database gone'));
    await expect(second).rejects.toThrow('database gone');
  });

  it('writes one statement per maxRows targets, oldest first, at most two at once, a target in one at a time', async () => {
    const h = harness({ maxRows: 2 });
    for (const [i, sn] of ['A', 'B', 'C', 'D', 'E'].entries()) void h.writer.put(i + 1, who(sn), { progress: 1, updated_at: 1 });
    h.clock.advance(0);
    expect(h.writes.map((w) => w.rows.map((r) => r.who.sn))).toEqual([
      ['A', 'B'],
      ['C', 'D'],
    ]);
    void h.writer.put(1, who('A'), { progress: 2, updated_at: 2 });
    h.clock.advance(100);
    expect(h.writes).toHaveLength(2); // E and A's newer patch wait for a batch to end
    h.writes[1]?.commit();
    await h.settle();
    h.clock.advance(5);
    expect(h.writes.map((w) => w.rows.map((r) => r.who.sn))).toEqual([['A', 'B'], ['C', 'D'], ['E']]); // A is still being written
    h.writes[0]?.commit();
    await h.settle();
    h.clock.advance(5);
    expect(h.writes[3]?.rows).toEqual([{ id: 1, who: who('A'), patch: { progress: 2, updated_at: 2 } }]);
  });

  it('flush() writes what is queued at once and does not wait for reports queued after it', async () => {
    const h = harness();
    void h.writer.put(1, who('A'), { progress: 1, updated_at: 1 });
    let flushed = false;
    void h.writer.flush().then(() => (flushed = true));
    h.clock.advance(0);
    expect(h.writes).toHaveLength(1);
    void h.writer.put(2, who('B'), { progress: 1, updated_at: 2 });
    h.writes[0]?.commit();
    await h.settle();
    expect(flushed).toBe(true);
    expect(h.writer.size).toBe(1);
  });
});
