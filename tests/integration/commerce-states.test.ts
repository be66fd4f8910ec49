import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActivationMode,
  Coverage,
  DemandKind,
  FormFieldType,
  InvoiceType,
  LicenceStatus,
  OrderDemandState,
  PayMethod,
  PaymentState,
  Precision,
  PurchaseType,
  TruePointAccountState,
  TruePointServiceState,
} from '../../protocol/index.ts';
import { LicenceMessage } from '../../server/commerce/licence-routes.ts';
import { OrderMessage } from '../../server/commerce/order-routes.ts';
import { type Client, client } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { api, loginAsAdmin, injectTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

describe('commerce state sets (devices-and-commerce sections 4 and 9)', () => {
  it('have exactly the spec codes', () => {
    expect(PaymentState).toEqual({ Success: 'SUCCESS', NotPay: 'NOT_PAY', Closed: 'CLOSED' });
    expect(Object.values(PayMethod)).toEqual(['alipay', 'offline']);
    expect(Object.values(InvoiceType)).toEqual(['PLAIN', 'VAT']);
    expect(LicenceStatus).toEqual({ Unused: 0, Used: 1, Distributed: 2 });
    expect(Object.values(OrderDemandState)).toEqual([0, 1, 2, 3, 4]);
    expect(Object.values(DemandKind)).toEqual(['trial', 'rework', 'official']);
    expect(Object.values(FormFieldType)).toEqual(['text', 'textarea', 'select', 'checkbox', 'date', 'upload']);
    expect(TruePointServiceState).toEqual({ ToBeActivated: 1, InService: 2, Expired: 3 });
    expect(Object.values(ActivationMode)).toEqual([1, 2]);
    expect(Object.values(Precision)).toEqual(['CM', 'DM']);
    expect(TruePointAccountState).toEqual({ Enabled: 1, Disabled: 2, Locked: 3 });
    expect(Object.values(Coverage)).toEqual([0, 1]);
    expect(Object.values(PurchaseType)).toEqual([
      'flow',
      'monthly_function_fee',
      'unify_sim',
      'sim',
      'push_ticket',
      'custom_made',
      'spring_card',
      'zxj_flow',
      'zxj_monthly_function_fee',
      'zxj_unify_sim',
      'zxj_sim',
      'iso_bus_activation_code',
    ]);
  });
});

interface Order {
  orderNo: string;
  tradeState: string;
  invoiced: boolean;
  offlinePending: boolean;
}
interface Licence {
  id: number;
  code: string;
  status: number;
}

for (const target of targets) {
  describe.skipIf(!target.available)(`commerce transitions are enforced by the server (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;

    beforeAll(async () => {
      // The sandbox stands in for Alipay here; it is off unless asked for.
      ts = await injectTestServer(target.name, { PAYMENT_SANDBOX: 'on' });
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());

    const newOrder = async () =>
      (await admin.ok<{ orderNo: string }>('POST', '/pay-data/createOrder', { type: 'sim', quantity: 1, formFactor: 'nano', logistics: { area: 'Hubei', address: '2 Lake Rd', contact: 'Han Mei', phone: '13900139000' } })).orderNo;
    const orderOf = async (orderNo: string) => {
      const list = await admin.ok<{ list: Order[] }>('GET', `/link-card-order/list?orderNo=${orderNo}`);
      const found = list.list.find((o) => o.orderNo === orderNo);
      if (!found) throw new Error(`order ${orderNo} not listed`);
      return found;
    };
    const message = async (path: string, body: object) => (await admin.call('POST', path, body)).message;
    const invoice = (orderNo: string) => ({ orderNos: [orderNo], type: 'PLAIN', header: 'Han Mei' });

    it('payment: NOT_PAY goes to SUCCESS once; a paid order neither closes, pays nor confirms again', async () => {
      const orderNo = await newOrder();
      expect((await orderOf(orderNo)).tradeState).toBe('NOT_PAY');
      await admin.ok('POST', '/pay-data/pay', { orderNo, payMethod: 'alipay' });
      await admin.ok('POST', '/payment/sandbox/pay', { orderNo });
      expect(await orderOf(orderNo)).toMatchObject({ tradeState: 'SUCCESS', invoiced: false });
      expect(await message('/pay-data/close', { orderNo })).toBe(OrderMessage.NotPayable);
      expect(await message('/pay-data/pay', { orderNo, payMethod: 'alipay' })).toBe(OrderMessage.NotPayable);
      expect(await message('/pay-data/pay', { orderNo, payMethod: 'offline', transferAmount: '15' })).toBe(OrderMessage.NotPayable);
      expect(await message('/payment/sandbox/pay', { orderNo })).toBe(OrderMessage.NotPayable);
      expect(await message('/link-card-order/confirmOffline', { orderNo })).toBe(OrderMessage.NotOffline);
      // Invoiced goes false to true once.
      await admin.ok('POST', '/link-card-order/invoice', invoice(orderNo));
      expect((await orderOf(orderNo)).invoiced).toBe(true);
      expect(await message('/link-card-order/invoice', invoice(orderNo))).toBe(OrderMessage.NotInvoiceable);
      expect((await orderOf(orderNo)).tradeState).toBe('SUCCESS');
    });

    it('payment: NOT_PAY goes to CLOSED, and a closed order is final', async () => {
      const orderNo = await newOrder();
      // An opened trade does not keep the order from closing; its later payment is refused.
      await admin.ok('POST', '/pay-data/pay', { orderNo, payMethod: 'alipay' });
      await admin.ok('POST', '/pay-data/close', { orderNo });
      expect((await orderOf(orderNo)).tradeState).toBe('CLOSED');
      expect(await message('/payment/sandbox/pay', { orderNo })).toBe(OrderMessage.NotPayable);
      expect(await message('/pay-data/close', { orderNo })).toBe(OrderMessage.NotPayable);
      expect(await message('/pay-data/pay', { orderNo, payMethod: 'alipay' })).toBe(OrderMessage.NotPayable);
      expect(await message('/link-card-order/confirmOffline', { orderNo })).toBe(OrderMessage.NotOffline);
      expect(await message('/link-card-order/invoice', invoice(orderNo))).toBe(OrderMessage.NotInvoiceable);
      expect((await orderOf(orderNo)).tradeState).toBe('CLOSED');
    });

    it('payment: an offline transfer waits for staff, who confirm it once; an order without one cannot be confirmed', async () => {
      const orderNo = await newOrder();
      expect(await message('/link-card-order/confirmOffline', { orderNo })).toBe(OrderMessage.NotOffline);
      await admin.ok('POST', '/pay-data/pay', { orderNo, payMethod: 'offline', transferAmount: '15.00' });
      expect(await orderOf(orderNo)).toMatchObject({ tradeState: 'NOT_PAY', offlinePending: true });
      await admin.ok('POST', '/link-card-order/confirmOffline', { orderNo });
      expect(await orderOf(orderNo)).toMatchObject({ tradeState: 'SUCCESS', offlinePending: false });
      expect(await message('/link-card-order/confirmOffline', { orderNo })).toBe(OrderMessage.NotOffline);
    });

    it('licences: 0 goes to 2 or 1, 2 goes to 1, and nothing leaves 1', async () => {
      const { codes } = await admin.ok<{ codes: string[] }>('POST', '/iso-bus/generate', { count: 2, label: 'state test' });
      const list = await admin.ok<{ list: Licence[] }>('GET', '/iso-bus/list?label=state%20test');
      const [first, second] = codes.map((code) => list.list.find((l) => l.code === code)) as [Licence, Licence];
      expect([first.status, second.status]).toEqual([0, 0]);
      const status = async (id: number) => (await admin.ok<{ list: Licence[] }>('GET', '/iso-bus/list?pageSize=100')).list.find((l) => l.id === id)?.status;
      const activate = (code: string, sn: string) => api<{ code: string }>(ts.server.url, 'POST', '/isobus-activate/activate', { body: { code, sn } });

      await admin.ok('POST', '/iso-bus/distribute', { ids: [first.id], label: 'dealer' });
      expect(await status(first.id)).toBe(2);
      expect(await message('/iso-bus/distribute', { ids: [first.id], label: 'dealer again' })).toBe(LicenceMessage.NotUnused);
      expect((await activate(first.code, 'SN-0001')).data).toMatchObject({ code: first.code, sn: 'SN-0001' });
      expect(await status(first.id)).toBe(1);
      expect(await message('/iso-bus/distribute', { ids: [first.id], label: 'back' })).toBe(LicenceMessage.NotUnused);
      expect((await activate(first.code, 'SN-0002')).message).toBe(LicenceMessage.Used);

      expect((await activate(second.code.toLowerCase(), 'SN-0003')).code).toBe(20000);
      expect(await status(second.id)).toBe(1);
      expect((await activate(second.code, 'SN-0003')).message).toBe(LicenceMessage.Used);
      // A batch with one used code distributes nothing.
      const { codes: more } = await admin.ok<{ codes: string[] }>('POST', '/iso-bus/generate', { count: 1, label: 'state test' });
      const fresh = (await admin.ok<{ list: Licence[] }>('GET', `/iso-bus/list?code=${more[0]}`)).list[0] as Licence;
      expect(await message('/iso-bus/distribute', { ids: [fresh.id, second.id], label: 'mixed' })).toBe(LicenceMessage.NotUnused);
      expect(await status(fresh.id)).toBe(0);
    });
  });
}
