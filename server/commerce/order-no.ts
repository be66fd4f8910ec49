import { randomBytes } from 'node:crypto';

const CHINA_OFFSET_MS = 8 * 3_600_000;

/** A new order number: the time in China (yyyyMMddHHmmss) and 24 random bits, upper-case hex. */
export function newOrderNo(now: number): string {
  const d = new Date(now + CHINA_OFFSET_MS).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${d}${randomBytes(3).toString('hex').toUpperCase()}`;
}
