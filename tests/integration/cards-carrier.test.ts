import { describe, expect, it } from 'vitest';
import { CardStatus, JuxinCardStatus, RealStatus, SpringCardStatus } from '../../protocol/index.ts';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import type { CarrierCard } from '../../server/carrier/carrier.ts';
import { ADDRESS_APPLY_MS, CarrierMessage, DAY_MS, isActive, SimulatedCarrier, usageAt } from '../../server/carrier/simulated-carrier.ts';
import { chinaDay } from '../../server/cards/card-codes.ts';

const clock = new FakeClock(Date.UTC(2026, 10, 22, 2));
const carrier = new SimulatedCarrier(clock);
const GB = 1024 ** 3;

function card(over: Partial<CarrierCard>): CarrierCard {
  return {
    iccid: '89861100000000000001',
    family: 'link',
    carrier: 'CU',
    springStatus: null,
    cardStatus: null,
    realStatus: null,
    juxinStatus: null,
    statusReason: 'carrier_status_push',
    statusChangedAt: clock.now() - DAY_MS,
    usedBytes: 0,
    usageSince: clock.now(),
    dailyRateBytes: 0,
    quotaBytes: GB,
    expireTime: clock.now() + 365 * DAY_MS,
    ...over,
  };
}

describe('simulated carrier: every state of every family', () => {
  it('spring cards: only test and in-use cards stop; only stopped and shutdown-warranty cards restart', async () => {
    for (const s of Object.values(SpringCardStatus)) {
      const c = card({ family: 'spring', springStatus: s });
      const stop = await carrier.act(c, 'stop');
      const restart = await carrier.act(c, 'restart');
      expect(stop.ok, `stop ${s}`).toBe(s === '00' || s === '10');
      expect(restart.ok, `restart ${s}`).toBe(s === '02' || s === '12');
      if (stop.ok) expect(stop.card).toMatchObject({ springStatus: '02', statusReason: 'manage' });
      if (restart.ok) expect(restart.card).toMatchObject({ springStatus: '10', statusReason: 'manage' });
      if (!stop.ok) expect(stop.message).toBe(CarrierMessage.NotStoppable);
    }
  });

  it('link cards: running real statuses stop to 40/200; only active and quota stops restart', async () => {
    for (const r of Object.values(RealStatus)) {
      const cs = r === 10 ? CardStatus.Testable : [100, 150].includes(r) ? CardStatus.InUse : [200, 300].includes(r) ? CardStatus.Stopped : r === 50 ? CardStatus.AccountClosed : CardStatus.Stopped;
      const c = card({ realStatus: r, cardStatus: cs });
      const stop = await carrier.act(c, 'stop');
      expect(stop.ok, `stop ${r}`).toBe([10, 100, 150].includes(r));
      if (stop.ok) expect(stop.card).toMatchObject({ cardStatus: 40, realStatus: 200 });
      const restart = await carrier.act(c, 'restart');
      expect(restart.ok, `restart ${r}`).toBe([200, 300].includes(r));
      if (restart.ok) expect(restart.card).toMatchObject({ cardStatus: 30, realStatus: 100 });
    }
  });

  it('juxin cards: normal stops; stopped and shutdown warranty restart; nothing else moves', async () => {
    for (const s of Object.values(JuxinCardStatus)) {
      const c = card({ family: 'juxin', juxinStatus: s });
      expect((await carrier.act(c, 'stop')).ok, `stop ${s}`).toBe(s === 2);
      expect((await carrier.act(c, 'restart')).ok, `restart ${s}`).toBe(s === 3 || s === 5);
    }
  });

  it('accrues usage only while active, stops at the quota, and refuses restarts without traffic or after expiry', async () => {
    const running = card({ realStatus: 100, cardStatus: 30, dailyRateBytes: GB / 8 });
    expect(isActive(running)).toBe(true);
    expect(usageAt(running, clock.now() + DAY_MS)).toBe(GB / 8);
    expect(usageAt({ ...running, realStatus: 200, cardStatus: 40 }, clock.now() + DAY_MS)).toBe(0);
    clock.advance(9 * DAY_MS);
    const after = await carrier.refresh(running);
    expect(after).toMatchObject({ cardStatus: 40, realStatus: 300, usedBytes: GB, statusReason: 'carrier_status_push' });
    expect(after.statusChangedAt).toBe(running.usageSince + 8 * DAY_MS);
    expect(await carrier.act(after, 'restart')).toEqual({ ok: false, message: CarrierMessage.NoTrafficLeft });
    const testCard = await carrier.refresh(card({ realStatus: 10, cardStatus: 10, dailyRateBytes: GB, usageSince: clock.now() - 2 * DAY_MS }));
    expect(testCard.statusReason).toBe('test_flow_depleted');
    const expired = card({ realStatus: 200, cardStatus: 40, expireTime: clock.now() - 1 });
    expect(await carrier.act(expired, 'restart')).toEqual({ ok: false, message: CarrierMessage.Expired });
    const firstUse = await carrier.refresh(card({ cardStatus: 20, realStatus: 20, dailyRateBytes: 1, usageSince: clock.now() - 5 }));
    expect(firstUse).toMatchObject({ cardStatus: 30, realStatus: 100, statusReason: 'first_data_record' });
  });

  it('applies directional addresses about 10 s after submission, and days renew at midnight China time', async () => {
    expect((await carrier.submitAddress({ groupId: 1, address: '1.2.3.4', op: 'add' })).effectiveAt).toBe(clock.now() + ADDRESS_APPLY_MS);
    const lateUtc = Date.UTC(2026, 10, 22, 15, 59);
    expect(chinaDay(lateUtc + 60_000)).toBe(chinaDay(lateUtc) + 1);
    expect(chinaDay(Date.UTC(2026, 10, 22, 0, 0))).toBe(chinaDay(Date.UTC(2026, 10, 22, 15, 0)));
  });
});
