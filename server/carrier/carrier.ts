import type { DiagnosisCheck } from '../../protocol/api/cards.ts';
import { type CarrierCode, formatMessage, type JuxinCardStatusCode, type PlainMessageKey, type RealStatusCode, type SpringCardStatusCode, type StatusChangeReasonCode } from '../../protocol/index.ts';

/**
 * The platform talks to carriers only through this interface, so a real carrier's adapter can replace the
 * simulated one without touching screens or routes. A provider never writes to the database: it answers
 * with the card's new carrier-side state and the card service stores it.
 */

/** The three card families of devices-and-commerce (spring card, directional-group or link card, juxin card). */
export const CardFamily = { Spring: 'spring', Link: 'link', Juxin: 'juxin' } as const;
export type CardFamilyCode = (typeof CardFamily)[keyof typeof CardFamily];
export const CARD_FAMILIES: readonly CardFamilyCode[] = Object.values(CardFamily);

/** What a user may ask a carrier to do to a card. */
export type CardAction = 'stop' | 'restart';

/** The carrier-side facts of one card: status (in its family's own codes), usage and quota. */
export interface CarrierCard {
  readonly iccid: string;
  readonly family: CardFamilyCode;
  readonly carrier: CarrierCode;
  readonly springStatus: SpringCardStatusCode | null;
  /** Link card status 10..50 (card status) and the carrier's real status 10..700. */
  readonly cardStatus: number | null;
  readonly realStatus: RealStatusCode | null;
  readonly juxinStatus: JuxinCardStatusCode | null;
  readonly statusReason: StatusChangeReasonCode;
  readonly statusChangedAt: number;
  /** Bytes used up to `usageSince`; usage after that accrues at `dailyRateBytes` while the card is active. */
  readonly usedBytes: number;
  readonly usageSince: number;
  readonly dailyRateBytes: number;
  readonly quotaBytes: number;
  readonly expireTime: number;
}

/** One check of an intelligent test, with a stable code the console translates (protocol/api/cards.ts). */
export type { DiagnosisCheck };

export type CarrierActionOutcome =
  | { readonly ok: true; readonly card: CarrierCard }
  | { readonly ok: false; readonly message: string };

/** The refusals a carrier answers with, by catalogue key; an outcome's `message` is one's English text. */
export const carrierRefusalKeys = {
  NotStoppable: 'carrier.notStoppable',
  NotRestartable: 'carrier.notRestartable',
  NoTrafficLeft: 'carrier.noTrafficLeft',
  Expired: 'carrier.expired',
} as const satisfies Readonly<Record<string, PlainMessageKey>>;

/**
 * The catalogue key of a carrier's refusal. A refusal the catalogue does not know is shown as the generic
 * error rather than as untranslated carrier text.
 */
export function carrierRefusalKey(message: string): PlainMessageKey {
  return Object.values(carrierRefusalKeys).find((key) => formatMessage('en', key) === message) ?? 'common.error';
}

/** A change to a directional group's address list as sent to the carrier. */
export interface AddressChange {
  readonly groupId: number;
  readonly address: string;
  readonly op: 'add' | 'remove';
}

export interface CarrierProvider {
  readonly name: string;
  /** The card as the carrier sees it now: usage accrued, and any status change the carrier made on its own. */
  refresh(card: CarrierCard): Promise<CarrierCard>;
  /** Stops or restarts a card, or refuses with a message when its state does not allow that. */
  act(card: CarrierCard, action: CardAction): Promise<CarrierActionOutcome>;
  /** The carrier's half of an intelligent test: registration, data session, remaining traffic. */
  diagnose(card: CarrierCard): Promise<DiagnosisCheck[]>;
  /** Submits an address change; answers when the carrier will have applied it. */
  submitAddress(change: AddressChange): Promise<{ readonly effectiveAt: number }>;
}
