import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { systemClock } from '../../protocol/index.ts';
import { OrderMessage } from '../../server/commerce/order-routes.ts';
import { openDatabase } from '../../server/db/database.ts';
import { migrations } from '../../server/db/migrations/index.ts';
import { type Client, client, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';
import { buyCoupons } from '../support/coupons.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

// Security issue items 5, 6 and 10: what one organisation starts, owns or pays for stays its own.

const targets = await dbTargets();
const DENIED = 40003;
const GONE = 40004;

let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}`;

/** A new organisation below `parentId` (the root when absent) whose login account holds `keys`: its client, token and id. */
async function tenant(ts: TestServer, admin: Client, keys: string[], parentId?: number): Promise<{ c: Client; token: string; orgId: number }> {
  const roleId = await createRole(admin, unique('role'), keys);
  const account = unique('acct');
  const orgId = await createOrg(admin, { name: unique('Org '), account, password: 'Tenant_pw1', roleId, ...(parentId ? { parentId } : {}) });
  const { token } = await loginAs(ts, account, 'Tenant_pw1');
  return { c: client(ts, token), token, orgId };
}

type Page<T> = { total: number; list: T[] };

for (const target of targets) {
  describe.skipIf(!target.available)(`a campaign belongs to, and is billed to, the organisation that starts it (${target.name})`, () => {
    let ts: TestServer;
    const sessions: DeviceSession[] = [];
    beforeAll(async () => {
      ts = await startTestServer(target.name);
    });
    afterAll(async () => {
      sessions.forEach((s) => s.dispose());
      await ts?.stop();
    });

    const device = (sn: string, enrollKey: string) => {
      const d = createVirtualDevice({
        gatewayUrl: ts.server.deviceSocketUrl,
        sn,
        enrollKey,
        info: { model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 2 },
        transport: wsTransport(),
        clock: systemClock,
        rebootDownMs: 1_000,
        tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } },
      });
      sessions.push(d);
      d.start();
      return d;
    };
    const balance = async (c: Client) => (await c.ok<{ balance: number }>('GET', '/push-coupon/info')).balance;

    it('a parent pushing a child organisation\'s firmware to its own devices pays for it, and the child sees none of it', { timeout: 60_000 }, async () => {
      const login = await loginAsAdmin(ts);
      const admin = client(ts, login.token);
      const child = await tenant(ts, admin, ['img_list', 'img_edit', 'img_push', 'custom-made-img_push-log', 'push_log_list', 'device_list']);
      const childFirmware = await uploadFirmware(ts.server.url, child.token);
      const prefix = `OWN${target.name === 'sqlite' ? 'S' : 'P'}`;
      const parentDevices = [0, 1, 2, 3].map((i) => device(`${prefix}${i}`, ts.server.seeded.enrollKey));
      await Promise.all(parentDevices.map((d) => d.waitLoggedIn()));
      const sns = parentDevices.map((d) => d.sn);

      await buyCoupons(ts.server.url, child.token, login.token, 50);
      // The parent has no coupons of its own: the child's 50 must not let its push start.
      const refused = await admin.call('POST', '/push/start', { kind: 'firmware', contentId: childFirmware, sns });
      expect(refused.message).toMatch(/Not enough push coupons/);

      await buyCoupons(ts.server.url, login.token, login.token, 50);
      const started = await admin.ok<{ campaign: { id: number; orgId: number } }>('POST', '/push/start', { kind: 'firmware', contentId: childFirmware, sns });
      expect(started.campaign.orgId).toBe(login.orgId);
      const campaignId = started.campaign.id;
      await vi.waitFor(async () => expect((await admin.ok<{ success: number }>('GET', `/push/campaign/${campaignId}`)).success).toBe(4), { timeout: 30_000, interval: 100 });
      expect(await balance(admin)).toBe(46);
      expect(await balance(child.c)).toBe(50);

      // The child sees neither the campaign nor the parent's serials.
      expect((await child.c.call('GET', `/push/campaign/${campaignId}`)).code).toBe(DENIED);
      const campaigns = await child.c.ok<Page<{ id: number }>>('POST', '/push/campaign/list', { pageNum: 1, pageSize: 100 });
      expect(campaigns.list.map((c) => c.id)).not.toContain(campaignId);
      const byCampaign = await child.c.ok<Page<{ sn: string }>>('POST', '/push-log/list', { pageNum: 1, pageSize: 100, campaignId });
      expect(byCampaign.total).toBe(0);
      const firmwareLog = await child.c.ok<Page<{ sn: string }>>('POST', '/push-log/list', { pageNum: 1, pageSize: 100, operationType: 'firmware' });
      expect(firmwareLog.list.filter((r) => sns.includes(r.sn))).toEqual([]);
      const ledger = await child.c.ok<Page<{ campaignId: number | null }>>('POST', '/push-coupon/ledger', { pageNum: 1, pageSize: 100 });
      expect(ledger.list.some((r) => r.campaignId === campaignId)).toBe(false);
    });

    it('devices added to a child\'s campaign come from the child\'s organisation only', { timeout: 60_000 }, async () => {
      const adminToken = (await loginAsAdmin(ts)).token;
      const admin = client(ts, adminToken);
      const child = await tenant(ts, admin, ['img_list', 'img_edit', 'img_push', 'custom-made-img_push-log', 'push_log_list', 'device_list']);
      const firmware = await uploadFirmware(ts.server.url, child.token);
      const org = await ts.server.db.selectFrom('organisations').select('enroll_key').where('id', '=', child.orgId).executeTakeFirstOrThrow();
      const own = device(`ADD${target.name}C`, org.enroll_key);
      const parents = [device(`ADD${target.name}P1`, ts.server.seeded.enrollKey), device(`ADD${target.name}P2`, ts.server.seeded.enrollKey)];
      await Promise.all([own, ...parents].map((d) => d.waitLoggedIn()));
      await buyCoupons(ts.server.url, child.token, adminToken, 50);
      // Waiting for approval, so nothing is pushed while devices are added.
      const started = await child.c.ok<{ campaign: { id: number } }>('POST', '/push/start', { kind: 'firmware', contentId: firmware, sns: [own.sn], requireApproval: true });
      const added = await admin.ok<{ added: number }>('POST', '/push/add-devices', { id: started.campaign.id, sns: parents.map((d) => d.sn) });
      expect(added.added).toBe(0);
      const log = await child.c.ok<Page<{ sn: string }>>('POST', '/push-log/list', { pageNum: 1, pageSize: 100, campaignId: started.campaign.id });
      expect(log.list.map((r) => r.sn)).toEqual([own.sn]);
    });
  });

  describe.skipIf(!target.available)(`document ownership (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    const authorKeys = ['document_list', 'document_manage'];
    beforeAll(async () => {
      ts = await startTestServer(target.name);
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());

    /** A first-level category, a subcategory and one document in it, saved by `c`. */
    async function library(c: Client, label: string) {
      const top = (await c.ok<{ id: number }>('POST', '/archives-category/save', { parentId: null, nameZh: label, nameEn: label })).id;
      const sub = (await c.ok<{ id: number }>('POST', '/archives-category/save', { parentId: top, nameZh: `${label} sub`, nameEn: `${label} sub` })).id;
      const doc = (await c.ok<{ id: number }>('POST', '/archives-document/save', { categoryId: sub, titleZh: label, titleEn: label, contentZh: '', contentEn: `${label} body` })).id;
      return { top, sub, doc };
    }
    const edit = (c: Client, id: number, categoryId: number) =>
      c.call('POST', '/archives-document/save', { id, categoryId, titleZh: 'taken over', titleEn: 'taken over', contentZh: '', contentEn: 'defaced' });

    it('another organisation with the authoring key can neither change nor delete the platform\'s documents and categories', async () => {
      const platform = await library(admin, unique('Platform'));
      const author = await tenant(ts, admin, authorKeys);

      // Readable, offered read-only.
      const tree = await author.c.ok<{ id: number; editable: boolean; children: { id: number; editable: boolean }[] }[]>('GET', '/archives-category/manage-tree');
      expect(tree.find((c) => c.id === platform.top)).toMatchObject({ editable: false, children: [{ id: platform.sub, editable: false }] });
      expect(await author.c.ok('GET', `/archives-document/list/${platform.sub}`)).toEqual([expect.objectContaining({ id: platform.doc, editable: false })]);
      expect(await admin.ok('GET', `/archives-document/list/${platform.sub}`)).toEqual([expect.objectContaining({ id: platform.doc, editable: true })]);

      expect((await edit(author.c, platform.doc, platform.sub)).code).toBe(DENIED);
      expect((await author.c.call('DELETE', `/archives-document/del/${platform.doc}`)).code).toBe(DENIED);
      expect((await author.c.call('POST', '/archives-document/save', { categoryId: platform.sub, titleZh: 'x', titleEn: 'x', contentZh: '', contentEn: '' })).code).toBe(DENIED);
      expect((await author.c.call('POST', '/archives-category/save', { id: platform.top, parentId: null, nameZh: 'x', nameEn: 'x' })).code).toBe(DENIED);
      expect((await author.c.call('POST', '/archives-category/save', { parentId: platform.top, nameZh: 'x', nameEn: 'x' })).code).toBe(DENIED);
      expect((await author.c.call('DELETE', `/archives-category/del/${platform.sub}`)).code).toBe(DENIED);

      const detail = await admin.ok<{ title: string; content: string }>('GET', `/archives-document/detail/${platform.doc}`);
      expect(detail.title).not.toBe('taken over');
      expect(detail.content).not.toContain('defaced');
      expect(await admin.ok('GET', `/archives-document/list/${platform.sub}`)).toHaveLength(1);
    });

    it('one organisation\'s documents are its own: a sibling neither reads nor changes them, the organisations below read them, the platform edits them', async () => {
      const a = await tenant(ts, admin, authorKeys);
      const b = await tenant(ts, admin, authorKeys);
      const below = await tenant(ts, admin, authorKeys, a.orgId);
      const own = await library(a.c, unique('Alpha'));
      expect(await a.c.ok('GET', `/archives-document/list/${own.sub}`)).toEqual([expect.objectContaining({ id: own.doc, editable: true })]);

      // A sibling: as if none of it existed.
      const siblingTree = await b.c.ok<{ id: number }[]>('GET', '/archives-category/first-and-second-tree');
      expect(siblingTree.map((c) => c.id)).not.toContain(own.top);
      expect((await b.c.call('GET', `/archives-document/list/${own.sub}`)).code).toBe(GONE);
      expect((await b.c.call('GET', `/archives-document/detail/${own.doc}`)).code).toBe(GONE);
      expect((await b.c.call('GET', `/archives-document/source/${own.doc}`)).code).toBe(GONE);
      expect((await edit(b.c, own.doc, own.sub)).code).toBe(GONE);
      expect((await b.c.call('DELETE', `/archives-document/del/${own.doc}`)).code).toBe(GONE);
      expect((await b.c.call('DELETE', `/archives-category/del/${own.sub}`)).code).toBe(GONE);
      // Nor can a sibling move its own document into the other's category.
      const bLib = await library(b.c, unique('Beta'));
      expect((await edit(b.c, bLib.doc, own.sub)).code).toBe(GONE);

      // Below: reads the parent's library, changes none of it.
      expect((await below.c.ok<{ id: number }[]>('GET', '/archives-category/first-and-second-tree')).map((c) => c.id)).toContain(own.top);
      expect(await below.c.ok('GET', `/archives-document/list/${own.sub}`)).toEqual([expect.objectContaining({ id: own.doc, editable: false })]);
      expect((await edit(below.c, own.doc, own.sub)).code).toBe(DENIED);

      // The platform (above every organisation) edits it.
      await admin.ok('POST', '/archives-document/save', { id: own.doc, categoryId: own.sub, titleZh: 'fixed', titleEn: 'fixed', contentZh: '', contentEn: 'fixed' });
      expect((await a.c.ok<{ title: string }>('GET', `/archives-document/detail/${own.doc}`)).title).toBe('fixed');
      await a.c.ok('DELETE', `/archives-document/del/${own.doc}`);
    });
  });

  describe.skipIf(!target.available)(`documents written before ownership become the platform's (${target.name})`, () => {
    it('migration 0013 gives every existing category and document to the root organisation', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-doc-owner-'));
      const pg = target.name === 'postgres' ? await freshPgSchema() : undefined;
      const db = await openDatabase({ databaseUrl: pg ? TEST_PG_URL : undefined, dataDir, migrate: false, ...(pg ? { pgSchema: pg.schema } : {}) });
      try {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, ...(pg ? { migrationTableSchema: pg.schema } : {}) });
        expect((await migrator.migrateTo('0012-device-holder')).error).toBeUndefined();
        const root = await db.insertInto('organisations').values({ parent_id: null, name: 'platform', enroll_key: 'k1', created_at: 0 }).returning('id').executeTakeFirstOrThrow();
        await db.insertInto('organisations').values({ parent_id: root.id, name: 'child', enroll_key: 'k2', created_at: 0 }).execute();
        const top = await db.insertInto('document_categories').values({ parent_id: null, update_time: 0 }).returning('id').executeTakeFirstOrThrow();
        const sub = await db.insertInto('document_categories').values({ parent_id: top.id, update_time: 0 }).returning('id').executeTakeFirstOrThrow();
        await db.insertInto('documents').values({ category_id: sub.id, update_time: 0 }).execute();

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const owners = [
          ...(await db.selectFrom('document_categories').select('org_id').execute()),
          ...(await db.selectFrom('documents').select('org_id').execute()),
        ].map((r) => r.org_id);
        expect(owners).toEqual([root.id, root.id, root.id]);
      } finally {
        await db.destroy();
        await pg?.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe.skipIf(!target.available)(`sandbox payment (${target.name})`, () => {
    const payable = async (c: Client) => {
      const order = await c.ok<{ orderNo: string }>('POST', '/pay-data/createOrder', { type: 'iso_bus_activation_code', quantity: 1 });
      return order.orderNo;
    };
    const tradeState = async (ts: TestServer, orderNo: string) =>
      (await ts.server.db.selectFrom('commerce_orders').select('trade_state').where('order_no', '=', orderNo).executeTakeFirstOrThrow()).trade_state;

    it('is off unless PAYMENT_SANDBOX=on: nobody settles an order through it, and Alipay is not offered', async () => {
      const ts = await startTestServer(target.name);
      try {
        const admin = client(ts, (await loginAsAdmin(ts)).token);
        const plain = await tenant(ts, admin, ['home_list']);
        expect(await plain.c.ok('GET', '/payment/mode')).toEqual({ online: false, sandbox: false, canSettle: false, staff: false });
        const orderNo = await payable(plain.c);
        expect((await plain.c.call('POST', '/pay-data/pay', { orderNo, payMethod: 'alipay' })).message).toBe(OrderMessage.NoOnlinePayment);
        expect((await plain.c.call('POST', '/payment/sandbox/pay', { orderNo })).code).toBe(DENIED);
        expect((await admin.call('POST', '/payment/sandbox/pay', { orderNo })).message).toBe(OrderMessage.NotSandbox);
        expect(await tradeState(ts, orderNo)).toBe('NOT_PAY');
        // Offline transfer still works, confirmed by staff.
        await plain.c.ok('POST', '/pay-data/pay', { orderNo, payMethod: 'offline', transferAmount: '50.00' });
        await admin.ok('POST', '/link-card-order/confirmOffline', { orderNo });
        expect(await tradeState(ts, orderNo)).toBe('SUCCESS');
      } finally {
        await ts.stop();
      }
    });

    it('with PAYMENT_SANDBOX=on, only the platform\'s payment administrators complete a sandbox trade', async () => {
      const ts = await startTestServer(target.name, { PAYMENT_SANDBOX: 'on' });
      try {
        const admin = client(ts, (await loginAsAdmin(ts)).token);
        const plain = await tenant(ts, admin, ['home_list']);
        // A customer organisation's account given the key is still not the platform.
        const keyed = await tenant(ts, admin, ['home_list', 'payment_admin']);
        expect(await plain.c.ok('GET', '/payment/mode')).toEqual({ online: true, sandbox: true, canSettle: false, staff: false });
        expect(await keyed.c.ok('GET', '/payment/mode')).toEqual({ online: true, sandbox: true, canSettle: false, staff: false });
        expect(await admin.ok('GET', '/payment/mode')).toEqual({ online: true, sandbox: true, canSettle: true, staff: true });

        const orderNo = await payable(plain.c);
        expect(await plain.c.ok('POST', '/pay-data/pay', { orderNo, payMethod: 'alipay' })).toMatchObject({ payMethod: 'alipay', sandbox: true });
        expect((await plain.c.call('POST', '/payment/sandbox/pay', { orderNo })).code).toBe(DENIED);
        expect(await tradeState(ts, orderNo)).toBe('NOT_PAY');

        const own = await payable(keyed.c);
        await keyed.c.ok('POST', '/pay-data/pay', { orderNo: own, payMethod: 'alipay' });
        expect(await keyed.c.call('POST', '/payment/sandbox/pay', { orderNo: own })).toMatchObject({ code: DENIED, message: OrderMessage.PaymentAdminOnly });
        expect(await tradeState(ts, own)).toBe('NOT_PAY');

        expect(await admin.ok('POST', '/payment/sandbox/pay', { orderNo })).toEqual({ notified: true });
        expect(await tradeState(ts, orderNo)).toBe('SUCCESS');
      } finally {
        await ts.stop();
      }
    });
  });
}

