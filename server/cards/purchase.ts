import { randomInt } from 'node:crypto';
import type { Insertable, Transaction } from 'kysely';
import { CardStatus, JuxinCardStatus, RealStatus, StatusChangeReason } from '../../protocol/index.ts';
import type { Database, SimCardTable } from '../db/schema.ts';
import { TRAFFIC_VALIDITY_MS } from './card-codes.ts';

/** Card purchase order types and the card family each delivers (sim and unify_sim: link cards; zxj_sim and zxj_unify_sim: juxin). */
export const CARD_PURCHASE_FAMILY: Readonly<Record<string, 'link' | 'juxin'>> = { sim: 'link', unify_sim: 'link', zxj_sim: 'juxin', zxj_unify_sim: 'juxin' };

/**
 * The combo a bought card arrives in (devices-and-commerce section 9): a unified purchase's cards share the
 * organisation's unified pool (UP); other cards are single cards (SC).
 */
export const purchaseCombo = (type: string): 'UP' | 'SC' => (type === 'unify_sim' || type === 'zxj_unify_sim' ? 'UP' : 'SC');

/** Shipping of a card purchase: paid and waiting to ship, shipped with a tracking number, received by the buyer. */
export type ShippingState = 'to_ship' | 'shipped' | 'received';

const digits = (n: number) => Array.from({ length: n }, () => String(randomInt(10))).join('');

/**
 * Puts a paid purchase's cards into the buyer's inventory, in the same transaction as the payment: new link
 * cards are "not used" in their quiet period (the first data record starts them), juxin cards "to activate",
 * with no traffic yet, the bought form factor, and valid for the traffic validity from now. The carrier
 * (China Mobile) and APN are the platform's default supply. Answers the new ICCIDs, in order.
 */
export async function deliverPurchasedCards(trx: Transaction<Database>, orgId: number, type: string, count: number, formFactor: string, now: number): Promise<string[]> {
  const family = CARD_PURCHASE_FAMILY[type];
  if (!family || count <= 0) return [];
  const rows: Insertable<SimCardTable>[] = [];
  const taken = new Set<string>();
  while (rows.length < count) {
    const iccid = `8986${family === 'link' ? '11' : '06'}${digits(14)}`;
    if (taken.has(iccid)) continue;
    taken.add(iccid);
    rows.push({
      org_id: orgId,
      family,
      iccid,
      msisdn: `14${digits(9)}`,
      imsi: `46000${digits(10)}`,
      carrier: 'CM',
      card_type: 'data',
      combo_type: purchaseCombo(type),
      spring_status: null,
      card_status: family === 'link' ? CardStatus.NotUsed : null,
      real_status: family === 'link' ? RealStatus.QuietPeriod : null,
      juxin_status: family === 'juxin' ? JuxinCardStatus.ToActivate : null,
      status_reason: StatusChangeReason.Manage,
      status_changed_at: now,
      used_bytes: 0,
      usage_since: now,
      daily_rate_bytes: 0,
      quota_bytes: 0,
      expire_time: now + TRAFFIC_VALIDITY_MS,
      apn: 'CMIOT',
      certification: 'none',
      form_factor: formFactor,
      group_id: null,
      activated_at: null,
      created_at: now,
    });
  }
  // An ICCID already in the table (a one-in-10^14 draw) fails the unique index and with it the payment's
  // transaction, which the payer can simply retry.
  await trx.insertInto('sim_cards').values(rows).execute();
  return rows.map((r) => r.iccid);
}
