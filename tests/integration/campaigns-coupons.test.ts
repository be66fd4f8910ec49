import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeMany, chargeOnce, couponInfo, creditRecharge } from '../../server/campaigns/coupons.ts';
import { type Db, openDatabase } from '../../server/db/database.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';

const targets = await dbTargets();

for (const target of targets) {
  describe.skipIf(!target.available)(`push coupons charged per dispatch chunk (${target.name})`, () => {
    let db: Db;
    let orgId = 0;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-coupons-'));
      const pg = target.name === 'postgres' ? await freshPgSchema() : undefined;
      db = await openDatabase({ databaseUrl: pg ? TEST_PG_URL : undefined, dataDir, ...(pg ? { pgSchema: pg.schema } : {}) });
      orgId = (await db.insertInto('organisations').values({ parent_id: null, name: 'root', enroll_key: 'k', created_at: 0, expire_time: null, login_account_id: null }).returning('id').executeTakeFirstOrThrow()).id;
      cleanup = async () => {
        await db.destroy();
        await pg?.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      };
    });
    afterAll(async () => cleanup?.());

    /** What settling a paid coupon order does (commerce settle). */
    const recharge = (count: number, now: number) => db.transaction().execute((trx) => creditRecharge(trx, orgId, count, `T${now}`, count * 100, now));
    const sns = (from: number, n: number) => Array.from({ length: n }, (_, i) => `C${from + i}`);
    const ledger = async (campaignId: number) => (await db.selectFrom('push_coupon_ledger').select('sn').where('campaign_id', '=', campaignId).execute()).map((r) => r.sn).sort();

    it('debits a whole chunk when the balance covers it, and charges nothing twice', async () => {
      await recharge(60, 1);
      const first = await chargeMany(db, orgId, 1, sns(0, 40), 2);
      expect(first.size).toBe(40);
      expect((await couponInfo(db, orgId)).balance).toBe(20);
      // A resend of the same devices (retry, restart) finds their ledger rows.
      const again = await chargeMany(db, orgId, 1, sns(30, 20), 3);
      expect([...again].sort()).toEqual(sns(30, 20).sort());
      expect((await couponInfo(db, orgId)).balance).toBe(10);
      expect(await ledger(1)).toEqual(sns(0, 50).sort());
      expect(await chargeOnce(db, orgId, 1, 'C0', 4)).toBe(true);
      expect((await couponInfo(db, orgId)).balance).toBe(10);
    });

    it('when the balance falls short, charges as many as it covers and leaves the rest uncharged', async () => {
      const got = await chargeMany(db, orgId, 2, sns(100, 25), 5);
      expect(got.size).toBe(10);
      expect((await couponInfo(db, orgId)).balance).toBe(0);
      expect(await ledger(2)).toEqual([...got].sort());
      expect((await chargeMany(db, orgId, 2, sns(200, 5), 6)).size).toBe(0);
      expect(await chargeOnce(db, orgId, 2, 'C300', 7)).toBe(false);
    });

    it('charges chunks of one campaign side by side exactly once each', async () => {
      await recharge(100, 8);
      const results = await Promise.all([chargeMany(db, orgId, 3, sns(0, 50), 9), chargeMany(db, orgId, 3, sns(50, 50), 9)]);
      expect(results.map((r) => r.size)).toEqual([50, 50]);
      expect((await couponInfo(db, orgId)).balance).toBe(0);
      expect(await ledger(3)).toHaveLength(100);
    });
  });
}
