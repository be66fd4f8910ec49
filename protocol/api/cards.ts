// A card as the server answers it (docs/DECISIONS.md, "Cards and commerce"): one definition for both sides.

/** The three card families (spring card, directional-group or link card, juxin card). */
export type CardFamilyName = 'spring' | 'link' | 'juxin';

/** A card's stored fields, as the detail call answers them. */
export interface CardView {
  readonly id: number;
  readonly orgId: number;
  readonly family: CardFamilyName;
  readonly iccid: string;
  readonly msisdn: string;
  readonly imsi: string;
  readonly carrier: string;
  readonly cardType: string;
  readonly comboType: string;
  readonly springStatus: string | null;
  readonly cardStatus: number | null;
  readonly realStatus: number | null;
  readonly juxinStatus: number | null;
  readonly statusReason: string;
  readonly statusChangedAt: number;
  readonly usedBytes: number;
  readonly quotaBytes: number;
  readonly expireTime: number;
  readonly apn: string;
  readonly certification: string;
  readonly formFactor: string;
  readonly groupId: number | null;
  readonly model: string;
  readonly deviceSn: string;
  readonly activatedAt: number | null;
  readonly createdAt: number;
}

/** A card in a list or detail answer, with what its carrier still allows today. */
export interface ListedCard extends CardView {
  /** Stops and restarts left today; null when the card has no daily limit. */
  readonly actionsLeftToday: number | null;
}

/**
 * The values behind one intelligent-test check, for the console to format in its language: bytes in 1024
 * units, times as dates (issue 20). `detail` stays as the carrier's English text for logs and old callers.
 */
export interface DiagnosisFacts {
  readonly signalDbm?: number;
  readonly bytesLeft?: number;
  readonly at?: number;
  readonly apn?: string;
  readonly certification?: string;
  readonly hasGroup?: boolean;
  readonly fourGOnly?: boolean;
}
