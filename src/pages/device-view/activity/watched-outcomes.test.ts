import { describe, expect, it } from 'vitest';
import { Command, type Envelope, Result } from '../../../../protocol/index.ts';
import { keepNewest, outcomesIn, WATCHED_OUTCOMES_KEPT } from './watched-outcomes.ts';

const outcome = (sn: string, msgId: number, time: number): Envelope => ({ msgId: Command.DeviceCommandOutcome, sn, data: { msgId, result: Result.Success, by: 'ops2', time } });

describe('outcomes of commands others send to a watched device', () => {
  it('takes only well-formed outcomes for the shown device, named from the catalogue', () => {
    const batch: Envelope[] = [
      outcome('D1', Command.Reboot, 1),
      outcome('D2', Command.Reboot, 2),
      { msgId: Command.DevicePresence, sn: 'D1', data: { onlineState: 1 } },
      { msgId: Command.DeviceCommandOutcome, sn: 'D1', data: { msgId: 'x' } },
      outcome('D1', 70_000, 3),
    ];
    expect(outcomesIn(batch, 'D1')).toEqual([
      { msgId: Command.Reboot, command: 'Reboot', result: Result.Success, by: 'ops2', time: 1 },
      { msgId: 70_000, command: '70000', result: Result.Success, by: 'ops2', time: 3 },
    ]);
  });

  it('keeps the newest first, up to the cap', () => {
    let list = keepNewest([], outcomesIn([outcome('D1', Command.Reboot, 1), outcome('D1', Command.PushText, 2)], 'D1'));
    expect(list.map((o) => o.time)).toEqual([2, 1]);
    for (let t = 3; t < 40; t++) list = keepNewest(list, outcomesIn([outcome('D1', Command.Reboot, t)], 'D1'));
    expect(list).toHaveLength(WATCHED_OUTCOMES_KEPT);
    expect(list[0]?.time).toBe(39);
  });
});
