import type { Page } from './devices.ts';
import { request } from './request.ts';
import type { OrderInvoice } from '../../protocol/api/invoices.ts';

export interface OrderLine {
  readonly item: string;
  readonly iccid?: string;
  readonly quantity: number;
  readonly unit: string;
  readonly unitPrice: number;
  readonly total: number;
}

/** An order or bill as the list calls answer it; amounts in minor units (fen). */
export interface Order {
  readonly orderNo: string;
  readonly orgId: number;
  readonly account: string;
  readonly type: string;
  readonly tradeState: 'SUCCESS' | 'NOT_PAY' | 'CLOSED';
  readonly payMethod: 'alipay' | 'offline' | null;
  readonly offlinePending: boolean;
  readonly amount: number;
  readonly realAmount: number;
  readonly invoiced: boolean;
  readonly invoice: OrderInvoice | null;
  readonly lines: readonly OrderLine[];
  readonly logistics: {
    area: string;
    address: string;
    contact: string;
    phone: string;
    simType: string;
    /** Card purchases once paid: where the parcel is, its tracking number, and the cards it delivered. */
    shipping?: 'to_ship' | 'shipped' | 'received';
    trackingNo?: string;
    shippedAt?: number;
    receivedAt?: number;
    iccids?: string[];
  } | null;
  readonly billMonth: string | null;
  readonly createdAt: number;
  readonly paidAt: number | null;
  readonly confirmedBy: string;
}

export interface OrderQuery {
  readonly pageNum: number;
  readonly pageSize: number;
  readonly orderNo?: string;
  readonly type?: string;
  readonly tradeState?: string;
}

export interface MonthlyBill {
  readonly month: string;
  readonly cardCount: number;
  readonly unitPrice: number;
  readonly amount: number;
  readonly orderNo: string;
  readonly tradeState: string;
}

export interface NewOrder {
  readonly type: 'flow' | 'monthly_function_fee' | 'sim' | 'unify_sim' | 'zxj_flow' | 'zxj_sim' | 'iso_bus_activation_code';
  readonly cards?: readonly { iccid: string; count: number }[];
  readonly month?: string;
  readonly quantity?: number;
  readonly formFactor?: string;
  readonly logistics?: { area: string; address: string; contact: string; phone: string };
}

export interface Invoice {
  readonly type: 'PLAIN' | 'VAT';
  readonly header: string;
  readonly taxCode?: string;
  readonly bank?: string;
  readonly bankAccount?: string;
  readonly address?: string;
  readonly telephone?: string;
}

export type PayAnswer =
  | { readonly payMethod: 'alipay'; readonly tradeNo: string; readonly payUrl: string; readonly sandbox: boolean }
  | { readonly payMethod: 'offline'; readonly bank: { company: string; bank: string; account: string }; readonly amountText: string };

/** How this server takes payment: online at all, through the sandbox, and whether the caller may complete sandbox trades. */
export interface PaymentMode {
  readonly online: boolean;
  readonly sandbox: boolean;
  readonly canSettle: boolean;
  /** Platform staff: they confirm offline transfers and issue invoices. */
  readonly staff: boolean;
}

export const commerceApi = {
  paymentMode: () => request<PaymentMode>({ method: 'GET', url: '/payment/mode' }),
  orders: (q: OrderQuery) => request<Page<Order>>({ method: 'GET', url: '/link-card-order/list', params: { ...q } }),
  bills: (q: OrderQuery) => request<Page<Order>>({ method: 'GET', url: '/link-card-bill/list', params: { ...q } }),
  monthly: (year: number) => request<{ year: number; list: MonthlyBill[] }>({ method: 'GET', url: '/link-card-bill/monthly', params: { year } }),
  monthlyDetail: (month: string, pageNum: number, pageSize: number) =>
    request<Page<{ iccid: string; msisdn: string; carrier: string; cardStatus: number; activatedAt: number; expireTime: number; fee: number }>>({
      method: 'GET',
      url: '/link-card-bill/detail-list',
      params: { month, pageNum, pageSize },
    }),
  create: (order: NewOrder) => request<{ orderNo: string; amount: number; lines: OrderLine[] }>({ method: 'POST', url: '/pay-data/createOrder', data: order }),
  pay: (orderNo: string, payMethod: 'alipay' | 'offline', transferAmount?: string) =>
    request<PayAnswer>({ method: 'POST', url: '/pay-data/pay', data: { orderNo, payMethod, ...(transferAmount === undefined ? {} : { transferAmount }) } }),
  sandboxPay: (orderNo: string) => request<{ notified: boolean }>({ method: 'POST', url: '/payment/sandbox/pay', data: { orderNo } }),
  close: (orderNo: string) => request<null>({ method: 'POST', url: '/pay-data/close', data: { orderNo } }),
  confirmOffline: (orderNo: string) => request<null>({ method: 'POST', url: '/link-card-order/confirmOffline', data: { orderNo } }),
  ship: (orderNo: string, trackingNo: string) => request<unknown>({ method: 'POST', url: '/link-card-order/ship', data: { orderNo, trackingNo } }),
  receive: (orderNo: string) => request<unknown>({ method: 'POST', url: '/link-card-order/receive', data: { orderNo } }),
  issueInvoice: (orderNo: string, invoiceNo: string) => request<OrderInvoice>({ method: 'POST', url: '/link-card-order/issueInvoice', data: { orderNo, invoiceNo } }),
  invoice: (orderNos: readonly string[], invoice: Invoice) => request<null>({ method: 'POST', url: '/link-card-order/invoice', data: { orderNos, ...invoice } }),
};

/** Minor units as yuan with 2 decimals. */
export function formatAmount(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

/** The spec's amount rule: a number with at most 2 decimals. */
export const AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?$/;

/** An ISOBUS activation code as /iso-bus/list answers it. */
export interface Licence {
  readonly id: number;
  readonly code: string;
  readonly label: string;
  readonly status: 0 | 1 | 2;
  readonly deviceSn: string;
  readonly operatedAt: number;
  readonly expireTime: number | null;
  readonly validityYears: number;
  readonly createdAt: number;
}

export interface LicenceQuery {
  readonly pageNum: number;
  readonly pageSize: number;
  readonly label?: string;
  readonly code?: string;
  readonly status?: string;
}

export const licenceApi = {
  list: (q: LicenceQuery) => request<Page<Licence>>({ method: 'GET', url: '/iso-bus/list', params: { ...q } }),
  exportUrl: '/iso-bus/export',
  exportCsv: (q: Omit<LicenceQuery, 'pageNum' | 'pageSize'>) => request<Blob>({ method: 'GET', url: '/iso-bus/export', params: { ...q }, responseType: 'blob' }),
  generate: (count: number, label: string) => request<{ codes: string[] }>({ method: 'POST', url: '/iso-bus/generate', data: { count, label } }),
  distribute: (ids: readonly number[], label: string) => request<null>({ method: 'POST', url: '/iso-bus/distribute', data: { ids, label } }),
  activate: (code: string, sn: string) => request<{ code: string; sn: string; expireTime: number }>({ method: 'POST', url: '/isobus-activate/activate', data: { code, sn } }),
};

export interface DemandField {
  readonly label: string;
  readonly type: 'text' | 'textarea' | 'select' | 'checkbox' | 'date' | 'upload';
  readonly value: string | readonly string[];
  readonly options?: readonly string[];
  /** A check a text value must pass (server/commerce/identity-rules.ts). */
  readonly rule?: 'phone' | 'mainlandPhone' | 'nationalId' | 'plate' | 'vin';
}

/** An order demand form as /order-requirements/* answer it. */
export interface Demand {
  readonly id: number;
  readonly number: string;
  readonly name: string;
  readonly customer: string;
  readonly kind: string;
  readonly model: string;
  readonly template: string;
  readonly fittings: readonly { sku: string; number: number }[];
  readonly fields: readonly DemandField[];
  readonly quantity: number;
  readonly additionalQuantity: number;
  readonly specialNeeds: string;
  readonly state: 0 | 1 | 2 | 3 | 4;
  readonly rejectReason: string;
  readonly parentNumber: string | null;
  readonly shareToken: string;
  readonly createdBy: string;
  readonly createdAt: number;
}

export interface DemandForm {
  readonly id?: number;
  readonly name: string;
  readonly customer: string;
  readonly kind: string;
  readonly model: string;
  readonly template: string;
  readonly fittings: readonly { sku: string; number: number }[];
  readonly fields: readonly DemandField[];
  readonly quantity: number;
  readonly specialNeeds: string;
  readonly submit: boolean;
}

export const demandApi = {
  list: (q: { pageNum: number; pageSize: number; number?: string; customer?: string; state?: string }) =>
    request<Page<Demand>>({ method: 'GET', url: '/order-requirements/list', params: { ...q } }),
  add: (f: DemandForm) => request<Demand>({ method: 'POST', url: '/order-requirements/add', data: f }),
  update: (f: DemandForm) => request<null>({ method: 'POST', url: '/order-requirements/update', data: f }),
  remove: (id: number) => request<null>({ method: 'DELETE', url: '/order-requirements/delete', data: { id } }),
  addSame: (id: number) => request<Demand>({ method: 'POST', url: '/order-requirements/add-same', data: { id } }),
  addMore: (id: number, quantity: number) => request<Demand>({ method: 'POST', url: '/order-requirements/add-more', data: { id, quantity } }),
  submit: (id: number) => request<null>({ method: 'POST', url: '/order-requirements/submit', data: { id } }),
  finish: (id: number) => request<null>({ method: 'POST', url: '/order-requirements/finish', data: { id } }),
  review: (id: number, approve: boolean, reason?: string) => request<null>({ method: 'POST', url: '/order-requirements/review', data: { id, approve, ...(reason ? { reason } : {}) } }),
  publicView: (number: string, token: string) => request<Omit<Demand, 'shareToken'>>({ method: 'GET', url: '/order-demand-detail/view', params: { number, token } }),
};

export interface TruePointAccount {
  readonly id: number;
  readonly accountNo: string;
  readonly password: string;
  readonly instanceId: string;
  readonly precision: string;
  readonly chargeType: string;
  readonly duration: number;
  readonly residualDays: number;
  readonly serviceState: number;
  readonly activationMode: number;
  readonly accountState: number;
  readonly times: number;
  readonly activatedAt: number | null;
  readonly expireTime: number | null;
}

export interface TruePointEquipment {
  readonly id: number;
  readonly equipmentId: string;
  readonly accountNo: string;
  readonly status: number;
  readonly disableStatus: number;
  readonly usedDays: number;
}

export const truePointApi = {
  accounts: (pageNum: number, pageSize: number) => request<Page<TruePointAccount>>({ method: 'GET', url: '/true-point/account/list', params: { pageNum, pageSize } }),
  /** Platform staff only: a new service account waiting for activation. */
  addAccount: (a: { accountNo: string; instanceId: string; precision: string; chargeType: string; duration: number; activationMode: number }) =>
    request<{ id: number; accountNo: string }>({ method: 'POST', url: '/true-point/account/add', data: a }),
  activate: (id: number) => request<null>({ method: 'POST', url: '/true-point/account/activate', data: { id } }),
  setState: (id: number, state: 1 | 2 | 3) => request<null>({ method: 'POST', url: '/true-point/account/state', data: { id, state } }),
  equipment: (accountId?: number) => request<Page<TruePointEquipment>>({ method: 'GET', url: '/true-point/equipment/list', params: { accountId } }),
  disable: (id: number, disabled: boolean) => request<null>({ method: 'POST', url: '/true-point/equipment/disable', data: { id, disabled } }),
};
