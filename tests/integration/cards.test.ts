import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { loadConfig } from '../../server/config.ts';
import { startServer } from '../../server/server.ts';
import { ADDRESS_APPLY_MS, CarrierMessage, DAY_MS } from '../../server/carrier/simulated-carrier.ts';
import { CardMessage } from '../../server/cards/card-routes.ts';
import { GroupMessage } from '../../server/cards/group-routes.ts';
import { type Client, client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';
import { loginAs, loginAsAdmin, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

interface Card {
  id: number;
  iccid: string;
  family: string;
  carrier: string;
  springStatus: string | null;
  cardStatus: number | null;
  realStatus: number | null;
  juxinStatus: number | null;
  statusReason: string;
  usedBytes: number;
  quotaBytes: number;
  actionsLeftToday: number | null;
}
type Page<T> = { total: number; list: T[] };

/** A test server on an injected clock (the card rules count China days and accrue usage over time). */
async function startClockedServer(db: 'sqlite' | 'postgres', clock: FakeClock): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cards-'));
  const pg = db === 'postgres' ? await freshPgSchema() : undefined;
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', ...(pg ? { DATABASE_URL: TEST_PG_URL } : {}) });
  const server = await startServer(config, { clock, pgSchema: pg?.schema });
  return {
    server,
    config,
    async stop() {
      await server.close();
      await pg?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// 2026-11-22 10:00 China time (02:00 UTC): the daily allowance renews at 16:00 UTC.
const START = Date.UTC(2026, 10, 22, 2, 0, 0);

for (const target of targets) {
  describe.skipIf(!target.available)(`cards (${target.name})`, () => {
    const clock = new FakeClock(START);
    let ts: TestServer;
    let admin: Client;

    beforeAll(async () => {
      ts = await startClockedServer(target.name, clock);
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());
    // Sessions last 24 hours of the injected clock too.
    const relogin = async () => {
      admin = client(ts, (await loginAsAdmin(ts)).token);
    };

    const springCards = (query = '') => admin.ok<Page<Card>>('GET', `/springCard/list?pageNum=1&pageSize=100${query}`);
    const linkCards = (query = '') => admin.ok<Page<Card>>('GET', `/linkCard/listCardInfo?pageNum=1&pageSize=100${query}`);

    it('seeds cards of every family on a fresh start, and filters and pages them', async () => {
      const spring = await springCards();
      const link = await linkCards();
      const juxin = await admin.ok<Page<Card>>('GET', '/zxj/list?pageNum=1&pageSize=100');
      expect(spring.total).toBeGreaterThan(5);
      expect(link.total).toBeGreaterThan(10);
      expect(juxin.total).toBeGreaterThan(5);
      const inUse = await linkCards('&status=30');
      expect(inUse.list.every((c) => c.cardStatus === 30)).toBe(true);
      const mobile = await springCards('&carrier=CM');
      expect(mobile.total).toBeGreaterThan(0);
      expect(mobile.list.every((c) => c.carrier === 'CM')).toBe(true);
      const paged = await admin.ok<Page<Card>>('GET', '/linkCard/listCardInfo?pageNum=2&pageSize=10');
      expect(paged.total).toBe(link.total);
      expect(paged.list.length).toBe(Math.min(10, link.total - 10));
      const bad = await admin.call('GET', '/linkCard/listCardInfo?status=31');
      expect(bad.code).toBe(40001);
    });

    it('a China Mobile spring card is stopped or restarted at most twice a China day; others have no limit', async () => {
      const card = (await springCards('&carrier=CM&status=10')).list[0];
      if (!card) throw new Error('no in-use mobile spring card seeded');
      expect(card.actionsLeftToday).toBe(2);
      const stop = await admin.ok<Card>('POST', '/springCard/changeStatus', { iccid: card.iccid, action: '01' });
      expect(stop).toMatchObject({ springStatus: '02', statusReason: 'manage' });
      // A refused action (already stopped) does not use up the allowance.
      const again = await admin.call('POST', '/springCard/changeStatus', { iccid: card.iccid, action: '01' });
      expect(again).toMatchObject({ code: 40001, message: CarrierMessage.NotStoppable });
      await admin.ok('POST', '/springCard/changeStatus', { iccid: card.iccid, action: '00' });
      const third = await admin.call('POST', '/springCard/changeStatus', { iccid: card.iccid, action: '01' });
      expect(third).toMatchObject({ code: 40001, message: CardMessage.DailyLimit });
      const detail = await admin.ok<Card & { events: { reason: string; toStatus: string }[] }>('GET', `/linkCard/getCardDetail/${card.iccid}`);
      expect(detail.actionsLeftToday).toBe(0);
      expect(detail.events.slice(0, 2).map((e) => e.toStatus)).toEqual(['10', '02']);

      // 14 hours later it is past midnight in China: the allowance is back.
      clock.advance(14 * 3_600_000);
      await relogin();
      await admin.ok('POST', '/springCard/changeStatus', { iccid: card.iccid, action: '01' });

      const other = (await springCards('&status=10')).list.find((c) => c.carrier !== 'CM');
      if (!other) throw new Error('no in-use spring card of another carrier seeded');
      expect(other.actionsLeftToday).toBeNull();
      for (const action of ['01', '00', '01', '00', '01']) await admin.ok('POST', '/springCard/changeStatus', { iccid: other.iccid, action });
    });

    it('usage accrues on the clock, and the carrier stops a card at its quota with a reason', async () => {
      const card = (await linkCards('&status=30&realStatus=100')).list.find((c) => c.usedBytes < c.quotaBytes);
      if (!card) throw new Error('no in-use link card');
      clock.advance(3_600_000);
      const later = await admin.ok<Card>('GET', `/linkCard/getCardDetail/${card.iccid}`);
      expect(later.usedBytes).toBeGreaterThan(card.usedBytes);
      // Months later every active card has run out of traffic.
      clock.advance(400 * DAY_MS);
      await relogin();
      const stopped = await admin.ok<Card & { events: { reason: string }[] }>('GET', `/linkCard/getCardDetail/${card.iccid}`);
      expect(stopped).toMatchObject({ cardStatus: 40, realStatus: 300, statusReason: 'carrier_status_push', usedBytes: card.quotaBytes });
      const restart = await admin.call('POST', '/linkCard/changeStatus', { iccid: card.iccid, action: '00' });
      expect(restart).toMatchObject({ code: 40001, message: CarrierMessage.NoTrafficLeft });
      // The list syncs too: no in-use card is left in use.
      expect((await linkCards('&realStatus=100')).total).toBe(0);
      const firstUse = await linkCards('&status=20');
      expect(firstUse.total).toBe(0);
    });

    it('every call of the area is in the OpenAPI document', async () => {
      const doc = (await (await fetch(`${ts.server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      for (const p of ['/springCard/list', '/linkCard/listCardInfo', '/linkCard/getCardDetail/{iccid}', '/linkCard/intelligentTest', '/zxj/changeStatus', '/linkCard/addDirectionalAddress', '/pay-data/createOrder', '/link-card-bill/monthly', '/iso-bus/export', '/isobus-activate/activate', '/order-requirements/add-more', '/true-point/account/list']) {
        expect(doc.paths, p).toHaveProperty([p]);
      }
    });

    it('an intelligent test reports each check', async () => {
      const card = (await linkCards()).list[0];
      if (!card) throw new Error('no link card');
      const report = await admin.ok<{ passed: boolean; checks: { code: string; passed: boolean }[] }>('POST', '/linkCard/intelligentTest', { iccid: card.iccid });
      expect(report.checks.map((c) => c.code)).toEqual(expect.arrayContaining(['registration', 'dataSession', 'traffic', 'apn', 'certification', 'expiry']));
      expect(report.passed).toBe(report.checks.every((c) => c.passed));
    });

    it('keys and organisation scope: a role without the key is refused, another organisation sees none of these cards', async () => {
      const roleId = await createRole(admin, 'cardviewer', ['home_list', 'springCard_list']);
      await createAccount(admin, 'cardviewer', 'Viewer_pw1', roleId);
      const viewer = client(ts, (await loginAs(ts, 'cardviewer', 'Viewer_pw1')).token);
      expect((await viewer.call('GET', '/springCard/list')).code).toBe(20000);
      expect((await viewer.call('GET', '/linkCard/listCardInfo')).code).toBe(40003);
      expect((await viewer.call('POST', '/zxj/changeStatus', { iccid: '89860000000000000000', action: '01' })).code).toBe(40003);

      const spring = (await springCards()).list[0];
      if (!spring) throw new Error('no spring card');
      await createOrg(admin, { name: 'Other fleet', account: 'otherfleet', password: 'Other_pw1' });
      const other = client(ts, (await loginAs(ts, 'otherfleet', 'Other_pw1')).token);
      expect(await other.ok<Page<Card>>('GET', '/springCard/list')).toEqual({ total: 0, list: [] });
      expect((await other.call('GET', `/linkCard/getCardDetail/${spring.iccid}`)).code).toBe(40004);
      expect((await other.call('POST', '/springCard/changeStatus', { iccid: spring.iccid, action: '01' })).code).toBe(40004);
    });
  });
}

interface Address {
  id: number;
  address: string;
  addressType: string;
  source: string;
  importType: string;
  state: number;
}
interface AddressList {
  maxCustom: number;
  presets: { address: string }[];
  list: Address[];
}

for (const target of targets) {
  describe.skipIf(!target.available)(`directional groups (${target.name})`, () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 2));
    let ts: TestServer;
    let admin: Client;

    beforeAll(async () => {
      ts = await startClockedServer(target.name, clock);
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());

    const addresses = (groupId: number) => admin.ok<AddressList>('GET', `/linkCard/listDirectionalAddress?groupId=${groupId}`);
    const add = (groupId: number, addressType: string, address: string, extra: object = {}) =>
      admin.call<{ id: number; state: number }>('POST', '/linkCard/addDirectionalAddress', { groupId, addressType, address, ...extra });

    it('validates addresses with the spec messages, applies them after about 10 s, and caps custom ones at 10', async () => {
      const { id } = await admin.ok<{ id: number }>('POST', '/linkCard/addDirectionGroup', { name: 'Fleet A', remark: 'trucks' });
      expect(await add(id, 'ip', '300.1.1.1')).toMatchObject({ code: 40001, message: 'IP address incorrect' });
      expect(await add(id, 'domain', 'not a domain')).toMatchObject({ code: 40001, message: 'domain name incorrect' });
      expect(await add(id, 'ip', 'example.com')).toMatchObject({ code: 40001, message: 'IP address incorrect' });
      expect(await add(id, 'kind', '1.1.1.1')).toMatchObject({ code: 40001 });

      const first = await add(id, 'domain', '*.Example.com', { description: 'API', importType: 'TRANSFER' });
      expect(first).toMatchObject({ code: 20000, data: { state: 100 } });
      expect((await addresses(id)).list[0]).toMatchObject({ address: '*.example.com', state: 100, source: 'user_defined', importType: 'TRANSFER' });
      expect(await add(id, 'domain', '*.example.com')).toMatchObject({ code: 40001, message: GroupMessage.Duplicate });
      clock.advance(ADDRESS_APPLY_MS - 1);
      expect((await addresses(id)).list[0]?.state).toBe(100);
      clock.advance(1);
      expect((await addresses(id)).list[0]?.state).toBe(500);

      // A preset cloud-provider address is the carrier's own and does not count as custom.
      const presets = (await addresses(id)).presets;
      expect(presets).toHaveLength(3);
      expect((await add(id, 'domain', presets[0]?.address ?? '')).code).toBe(20000);
      for (let i = 2; i <= 10; i++) expect((await add(id, 'ip', `10.0.0.${i}`)).code).toBe(20000);
      expect(await add(id, 'ip', '10.0.0.11')).toMatchObject({ code: 40001, message: GroupMessage.TooMany });
      const listed = await addresses(id);
      expect(listed.list.filter((a) => a.source === 'user_defined')).toHaveLength(10);
      expect(listed.list.filter((a) => a.source === 'aliyun_defined')).toHaveLength(1);

      // Removing takes the carrier the same time; a pending address cannot be removed meanwhile.
      const pending = listed.list.find((a) => a.address === '10.0.0.10');
      expect((await admin.call('DELETE', '/linkCard/delDirectionalAddress', { id: pending?.id })).message).toBe(GroupMessage.AddressBusy);
      clock.advance(ADDRESS_APPLY_MS);
      await admin.ok('DELETE', '/linkCard/delDirectionalAddress', { id: pending?.id });
      expect((await addresses(id)).list.find((a) => a.id === pending?.id)?.state).toBe(200);
      expect((await admin.call('DELETE', '/linkCard/delDirectionalAddress', { id: pending?.id })).message).toBe(GroupMessage.AddressBusy);
      clock.advance(ADDRESS_APPLY_MS);
      expect((await addresses(id)).list.find((a) => a.id === pending?.id)).toBeUndefined();
      expect((await add(id, 'ip', '10.0.0.11')).code).toBe(20000);
    });

    it('lists groups with counts, refuses deleting a group with cards, and keeps groups to their organisation', async () => {
      const groups = await admin.ok<{ total: number; list: { id: number; name: string; cardCount: number; customCount: number }[] }>('GET', '/linkCard/linkCardDirectionGroupList?pageNum=1&pageSize=10');
      const seeded = groups.list.find((g) => g.name === 'Telematics');
      expect(seeded?.cardCount).toBeGreaterThan(0);
      expect((await admin.call('DELETE', '/linkCard/delDirectionGroup', { id: seeded?.id })).message).toBe(GroupMessage.HasCards);
      expect((await admin.call('POST', '/linkCard/addDirectionGroup', { name: '  ' })).message).toBe('Name cannot be empty!');

      await createOrg(admin, { name: 'Group tenant', account: 'grouptenant', password: 'Tenant_pw1' });
      const tenant = client(ts, (await loginAs(ts, 'grouptenant', 'Tenant_pw1')).token);
      expect((await tenant.ok<{ total: number }>('GET', '/linkCard/linkCardDirectionGroupList')).total).toBe(0);
      expect((await tenant.call('GET', `/linkCard/listDirectionalAddress?groupId=${seeded?.id}`)).code).toBe(40004);
      expect((await tenant.call('POST', '/linkCard/addDirectionalAddress', { groupId: seeded?.id, addressType: 'ip', address: '1.1.1.1' })).code).toBe(40004);
      const own = await tenant.ok<{ id: number }>('POST', '/linkCard/addDirectionGroup', { name: 'Mine' });
      expect((await admin.ok<{ total: number }>('GET', '/linkCard/linkCardDirectionGroupList?name=mine')).total).toBe(1);
      await tenant.ok('DELETE', '/linkCard/delDirectionGroup', { id: own.id });
    });
  });
}
