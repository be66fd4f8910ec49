// Money is held in integer minor units (fen) everywhere; decimals exist only as text at the edges, so no
// arithmetic ever runs on binary fractions.

import { formatMessage } from '../../protocol/index.ts';

export const AmountMessage = formatMessage('en', 'order.amount');

const AMOUNT = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?$/;

/** Minor units of a typed amount ("12", "12.3", "12.34"), or undefined when it is not one. */
export function parseAmount(text: string): number | undefined {
  const m = AMOUNT.exec(text.trim());
  if (!m) return undefined;
  const whole = Number(m[1]);
  const fraction = (m[2] ?? '.').slice(1).padEnd(2, '0');
  return whole * 100 + Number(fraction);
}

/** The amount as yuan text with exactly 2 decimals. */
export function formatAmount(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Line total: a whole quantity at a unit price, exact in minor units. */
export function lineTotal(quantity: number, unitPrice: number): number {
  if (!Number.isSafeInteger(quantity) || !Number.isSafeInteger(unitPrice)) throw new RangeError('quantity and unit price must be integers');
  return quantity * unitPrice;
}

/** Prices in minor units (fen); the spec's units: yuan/GB and yuan/portion (devices-and-commerce section 9). */
export const Price = {
  /** Traffic, per GB. */
  flowPerGb: 1000,
  /** Monthly function fee: 1 unit (yuan) per valid card per month. */
  monthlyFeePerCard: 100,
  /** A SIM card, per portion. */
  simPerCard: 1500,
  /** A juxin card renewal, per card per month. */
  juxinPerMonth: 800,
  /** An ISOBUS activation code, per portion. */
  isoBusCode: 5000,
} as const;
