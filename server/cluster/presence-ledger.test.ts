import { describe, expect, it } from 'vitest';
import { PresenceLedger } from './presence-ledger.ts';

describe('PresenceLedger (which worker holds which device)', () => {
  const presence = (node: string, sn: string, online: boolean, time: number) => ({ node, sn, orgId: 7, online, time });

  it("returns a dead worker's devices with the time of their login, once", () => {
    const ledger = new PresenceLedger();
    ledger.record(presence('w1', 'A', true, 100));
    ledger.record(presence('w1', 'B', true, 110));
    ledger.record(presence('w2', 'C', true, 120));
    ledger.record(presence('w1', 'B', false, 130));
    expect(ledger.release('w1')).toEqual([{ sn: 'A', orgId: 7, onlineSince: 100 }]);
    expect(ledger.release('w1')).toEqual([]);
    expect(ledger.counts()).toEqual(new Map([['w2', 1]]));
  });

  it('leaves a device that already reconnected to another worker to that worker', () => {
    const ledger = new PresenceLedger();
    ledger.record(presence('w1', 'A', true, 100));
    ledger.record(presence('w2', 'A', true, 200));
    // The old worker's late offline news does not unseat the new holder.
    ledger.record(presence('w1', 'A', false, 150));
    expect(ledger.release('w1')).toEqual([]);
    expect(ledger.release('w2')).toEqual([{ sn: 'A', orgId: 7, onlineSince: 200 }]);
  });
});
