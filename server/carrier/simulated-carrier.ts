import { CardStatus, Carrier, type Clock, englishOf, JuxinCardStatus, RealStatus, SpringCardStatus, StatusChangeReason, type StatusChangeReasonCode } from '../../protocol/index.ts';
import { type AddressChange, type CardAction, type CarrierActionOutcome, type CarrierCard, type CarrierProvider, carrierRefusalKeys, type DiagnosisCheck } from './carrier.ts';

export const DAY_MS = 86_400_000;
/** The spec's note: a new directional address takes about 10 seconds to work. */
export const ADDRESS_APPLY_MS = 10_000;

/** Refusals of the simulated carrier, worded as the console shows them (in English). */
export const CarrierMessage = englishOf(carrierRefusalKeys);

const SPRING_ACTIVE: ReadonlySet<string> = new Set([SpringCardStatus.Test, SpringCardStatus.InUse]);
const LINK_ACTIVE: ReadonlySet<number> = new Set([RealStatus.TestPeriod, RealStatus.InUse, RealStatus.PartlyInUse]);

/** True while the card can carry data, and so accrues usage. */
export function isActive(card: CarrierCard): boolean {
  switch (card.family) {
    case 'spring':
      return card.springStatus !== null && SPRING_ACTIVE.has(card.springStatus);
    case 'link':
      return card.realStatus !== null && LINK_ACTIVE.has(card.realStatus);
    case 'juxin':
      return card.juxinStatus === JuxinCardStatus.Normal;
  }
}

/** The card's status as one text, for history rows: the family's own code (link: card/real). */
export function statusText(card: CarrierCard): string {
  switch (card.family) {
    case 'spring':
      return card.springStatus ?? '';
    case 'link':
      return `${card.cardStatus ?? ''}/${card.realStatus ?? ''}`;
    case 'juxin':
      return String(card.juxinStatus ?? '');
  }
}

/** Usage at `at`, accrued from the last settled point while active; whole bytes, never above the quota. */
export function usageAt(card: CarrierCard, at: number): number {
  if (!isActive(card) || at <= card.usageSince || card.dailyRateBytes <= 0) return card.usedBytes;
  const accrued = Math.floor((card.dailyRateBytes * (at - card.usageSince)) / DAY_MS);
  return Math.min(card.quotaBytes, card.usedBytes + accrued);
}

/** The card with its usage settled at `at` (the point further accrual starts from). */
function settled(card: CarrierCard, at: number): CarrierCard {
  return { ...card, usedBytes: usageAt(card, at), usageSince: Math.max(at, card.usageSince) };
}

/** The stopped state of each family, with the reason the carrier gives. */
function stopped(card: CarrierCard, at: number, reason: StatusChangeReasonCode, quota: boolean): CarrierCard {
  const base = { ...settled(card, at), statusReason: reason, statusChangedAt: at };
  switch (card.family) {
    case 'spring':
      return { ...base, springStatus: SpringCardStatus.Stopped };
    case 'link':
      return { ...base, cardStatus: CardStatus.Stopped, realStatus: quota ? RealStatus.QuotaStop : RealStatus.ActiveStop };
    case 'juxin':
      return { ...base, juxinStatus: JuxinCardStatus.Stopped };
  }
}

/** A link card that is "not used" starts on its first data record, which the seed schedules at usageSince. */
function firstUse(card: CarrierCard, now: number): CarrierCard {
  if (card.family !== 'link' || card.cardStatus !== CardStatus.NotUsed || card.dailyRateBytes <= 0 || now < card.usageSince) return card;
  return {
    ...card,
    cardStatus: CardStatus.InUse,
    realStatus: RealStatus.InUse,
    statusReason: StatusChangeReason.FirstDataRecord,
    statusChangedAt: card.usageSince,
  };
}

/** When an active card's usage reaches its quota the carrier stops it; test cards say their test flow ran out. */
function quotaStop(card: CarrierCard, now: number): CarrierCard {
  if (!isActive(card) || card.dailyRateBytes <= 0) return card;
  const left = card.quotaBytes - card.usedBytes;
  const reachedAt = card.usageSince + Math.ceil((left * DAY_MS) / card.dailyRateBytes);
  if (left > 0 && reachedAt > now) return card;
  const inTest = card.realStatus === RealStatus.TestPeriod || card.springStatus === SpringCardStatus.Test;
  const at = Math.max(card.usageSince, Math.min(reachedAt, now));
  return stopped(card, at, inTest ? StatusChangeReason.TestFlowDepleted : StatusChangeReason.CarrierStatusPush, true);
}

/**
 * The default carrier: everything a carrier does to a card is computed from the card's record and the
 * injected clock, so it behaves the same on every node and after a restart, and tests drive it with fake
 * time. Usage accrues while a card is active; a card stops itself at its quota; stop and restart follow
 * each family's states.
 */
export class SimulatedCarrier implements CarrierProvider {
  readonly name = 'simulated';
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async refresh(card: CarrierCard): Promise<CarrierCard> {
    const now = this.#clock.now();
    return quotaStop(firstUse(card, now), now);
  }

  async act(input: CarrierCard, action: CardAction): Promise<CarrierActionOutcome> {
    const now = this.#clock.now();
    const card = await this.refresh(input);
    if (action === 'stop') {
      if (!isActive(card)) return { ok: false, message: CarrierMessage.NotStoppable };
      return { ok: true, card: stopped(card, now, StatusChangeReason.Manage, false) };
    }
    if (!this.#restartable(card)) return { ok: false, message: CarrierMessage.NotRestartable };
    if (card.usedBytes >= card.quotaBytes) return { ok: false, message: CarrierMessage.NoTrafficLeft };
    if (card.expireTime <= now) return { ok: false, message: CarrierMessage.Expired };
    const base = { ...card, usageSince: now, statusReason: StatusChangeReason.Manage, statusChangedAt: now };
    switch (card.family) {
      case 'spring':
        return { ok: true, card: { ...base, springStatus: SpringCardStatus.InUse } };
      case 'link':
        return { ok: true, card: { ...base, cardStatus: CardStatus.InUse, realStatus: RealStatus.InUse } };
      case 'juxin':
        return { ok: true, card: { ...base, juxinStatus: JuxinCardStatus.Normal } };
    }
  }

  #restartable(card: CarrierCard): boolean {
    switch (card.family) {
      case 'spring':
        return card.springStatus === SpringCardStatus.Stopped || card.springStatus === SpringCardStatus.ShutdownWarranty;
      case 'link':
        return card.cardStatus === CardStatus.Stopped && (card.realStatus === RealStatus.ActiveStop || card.realStatus === RealStatus.QuotaStop);
      case 'juxin':
        return card.juxinStatus === JuxinCardStatus.Stopped || card.juxinStatus === JuxinCardStatus.ShutdownWarranty;
    }
  }

  async diagnose(input: CarrierCard): Promise<DiagnosisCheck[]> {
    const now = this.#clock.now();
    const card = await this.refresh(input);
    const active = isActive(card);
    const left = card.quotaBytes - usageAt(card, now);
    // A stable pseudo signal per card, so repeated tests of one card agree.
    const signal = -65 - (Number.parseInt(card.iccid.slice(-2), 10) % 30);
    return [
      { code: 'registration', passed: active, detail: active ? `registered, signal ${signal} dBm` : 'not registered: the card is not active', facts: active ? { signalDbm: signal } : {} },
      { code: 'dataSession', passed: active && card.dailyRateBytes > 0, detail: active ? 'data session up' : 'no data session', facts: {} },
      { code: 'traffic', passed: left > 0, detail: `${Math.max(0, left)} bytes left`, facts: { bytesLeft: Math.max(0, left) } },
      { code: 'mobile4g', passed: card.carrier !== Carrier.ChinaMobile || active, detail: card.carrier === Carrier.ChinaMobile ? '4G only' : 'any', facts: { fourGOnly: card.carrier === Carrier.ChinaMobile } },
    ];
  }

  async submitAddress(_change: AddressChange): Promise<{ effectiveAt: number }> {
    return { effectiveAt: this.#clock.now() + ADDRESS_APPLY_MS };
  }
}
