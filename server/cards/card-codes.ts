// Card fields the spec names without codes (devices-and-commerce section 3); the codes are ours and the
// console translates them (src/i18n/locales/cards.ts, cards.cardType.* and cards.certification.*).

/** Card type: what the card's plan carries. */
export const CARD_TYPES = ['data', 'data_sms', 'data_voice'] as const;
export type CardTypeCode = (typeof CARD_TYPES)[number];

/** Real-name certification of a card's holder. */
export const CERTIFICATIONS = ['none', 'personal', 'enterprise'] as const;
export type CertificationCode = (typeof CERTIFICATIONS)[number];

/** Spring card stops and restarts a China Mobile card allows per day (devices-and-commerce section 9). */
export const MOBILE_DAILY_ACTIONS = 2;

/** The carriers count days in China Standard Time (UTC+8), so the allowance renews at 00:00 there. */
const CHINA_OFFSET_MS = 8 * 3_600_000;

/** The China day number of an instant, for the daily allowance. */
export function chinaDay(at: number): number {
  return Math.floor((at + CHINA_OFFSET_MS) / 86_400_000);
}

/** Link card traffic validity: 3 years (devices-and-commerce section 9). */
export const TRAFFIC_VALIDITY_MS = 3 * 365 * 86_400_000;

export const GB = 1024 ** 3;
export const MB = 1024 ** 2;
