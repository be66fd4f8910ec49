import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { loadConfig } from '../../server/config.ts';
import { startServer } from '../../server/server.ts';
import { TruePointMessage } from '../../server/commerce/truepoint-routes.ts';
import { type Client, client, createOrg } from '../support/console-api.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';
import { loginAs, loginAsAdmin, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const targets = await dbTargets();
const DAY = 86_400_000;

interface Account {
  id: number;
  accountNo: string;
  precision: string;
  duration: number;
  residualDays: number;
  serviceState: number;
  accountState: number;
  times: number;
}
interface Equipment {
  id: number;
  equipmentId: string;
  status: number;
  disableStatus: number;
  usedDays: number;
}

for (const target of targets) {
  describe.skipIf(!target.available)(`true-point time-pool (${target.name})`, () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 2));
    let ts: TestServer;
    let admin: Client;

    beforeAll(async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tp-'));
      const pg = target.name === 'postgres' ? await freshPgSchema() : undefined;
      const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', ...(pg ? { DATABASE_URL: TEST_PG_URL } : {}) });
      const server = await startServer(config, { clock, pgSchema: pg?.schema });
      ts = { server, config, stop: async () => (await server.close(), await pg?.drop(), fs.rmSync(dataDir, { recursive: true, force: true })) };
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());

    const accounts = () => admin.ok<{ total: number; list: Account[] }>('GET', '/true-point/account/list');

    it('activates a waiting account for its duration, and it expires on the clock', async () => {
      const list = await accounts();
      expect(list.total).toBe(3);
      const waiting = list.list.find((a) => a.serviceState === 1);
      if (!waiting) throw new Error('no account waiting for activation');
      await admin.ok('POST', '/true-point/account/state', { id: waiting.id, state: 2 });
      expect((await admin.call('POST', '/true-point/account/activate', { id: waiting.id })).message).toBe(TruePointMessage.NotActivatable);
      await admin.ok('POST', '/true-point/account/state', { id: waiting.id, state: 3 });
      expect((await admin.call('POST', '/true-point/account/activate', { id: waiting.id })).message).toBe(TruePointMessage.NotActivatable);
      await admin.ok('POST', '/true-point/account/state', { id: waiting.id, state: 1 });
      await admin.ok('POST', '/true-point/account/activate', { id: waiting.id });
      const active = (await accounts()).list.find((a) => a.id === waiting.id);
      expect(active).toMatchObject({ serviceState: 2, residualDays: waiting.duration, times: 1 });
      expect((await admin.call('POST', '/true-point/account/activate', { id: waiting.id })).message).toBe(TruePointMessage.NotActivatable);
      clock.advance(10 * DAY);
      admin = client(ts, (await loginAsAdmin(ts)).token);
      expect((await accounts()).list.find((a) => a.id === waiting.id)?.residualDays).toBe(waiting.duration - 10);
      clock.advance(waiting.duration * DAY);
      admin = client(ts, (await loginAsAdmin(ts)).token);
      expect((await accounts()).list.find((a) => a.id === waiting.id)?.serviceState).toBe(3);
      // Expired is final for activation; a locked account cannot be activated either.
      expect((await admin.call('POST', '/true-point/account/activate', { id: waiting.id })).message).toBe(TruePointMessage.NotActivatable);
      expect((await admin.call('POST', '/true-point/account/state', { id: waiting.id, state: 4 })).code).toBe(40001);
    });

    it('lets platform staff create a service account, waiting for activation, with the fields checked', async () => {
      const body = { accountNo: 'tp-field-01', instanceId: 'inst-survey-1', precision: 'CM', chargeType: 'monthly', duration: 30, activationMode: 2 };
      expect((await admin.call('POST', '/true-point/account/add', { ...body, accountNo: 'a b' })).message).toBe(TruePointMessage.AccountNo);
      expect((await admin.call('POST', '/true-point/account/add', { ...body, instanceId: 'has space' })).message).toBe(TruePointMessage.InstanceId);
      await admin.ok('POST', '/true-point/account/add', body);
      expect((await admin.call('POST', '/true-point/account/add', body)).message).toBe(TruePointMessage.AccountTaken);
      const created = (await accounts()).list.find((a) => a.accountNo === 'tp-field-01');
      expect(created).toMatchObject({ precision: 'CM', duration: 30, residualDays: 30, serviceState: 1, accountState: 1, times: 0 });
      // A customer organisation cannot open accounts.
      await createOrg(admin, { name: 'Survey customer', account: 'surveycust', password: 'Survey_pw2' });
      const customer = client(ts, (await loginAs(ts, 'surveycust', 'Survey_pw2')).token);
      expect((await customer.call('POST', '/true-point/account/add', { ...body, accountNo: 'tp-field-02' })).message).toBe(TruePointMessage.StaffOnly);
    });

    it('lists equipment with used days, disables it, and keeps both to the organisation', async () => {
      const equipment = await admin.ok<{ total: number; list: Equipment[] }>('GET', '/true-point/equipment/list');
      expect(equipment.total).toBeGreaterThan(0);
      const first = equipment.list[0] as Equipment;
      expect(first.usedDays).toBeGreaterThan(0);
      await admin.ok('POST', '/true-point/equipment/disable', { id: first.id, disabled: true });
      expect((await admin.ok<{ list: Equipment[] }>('GET', '/true-point/equipment/list')).list.find((e) => e.id === first.id)?.disableStatus).toBe(2);
      await createOrg(admin, { name: 'Surveyor', account: 'surveyor', password: 'Survey_pw1' });
      const other = client(ts, (await loginAs(ts, 'surveyor', 'Survey_pw1')).token);
      expect((await other.ok<{ total: number }>('GET', '/true-point/account/list')).total).toBe(0);
      expect((await other.ok<{ total: number }>('GET', '/true-point/equipment/list')).total).toBe(0);
      expect((await other.call('POST', '/true-point/equipment/disable', { id: first.id, disabled: false })).code).toBe(40004);
      expect((await other.call('POST', '/true-point/account/activate', { id: 1 })).code).toBe(40004);
    });
  });
}
