import type { ConsoleQuery } from '../../protocol/api/common.ts';
import type {
  ActivatedLicence,
  BilledCard,
  CreatedOrder,
  CreateOrderBody,
  DemandBody,
  DemandField,
  DemandListQuery,
  DemandView,
  InvoiceFields,
  Licence,
  LicenceListQuery,
  MonthlyBill,
  MonthlyBills,
  OrderLine,
  OrderListQuery,
  OrderView,
  PayAnswer,
  PaymentMode,
} from '../../protocol/api/commerce.ts';
import type { OrderInvoice } from '../../protocol/api/invoices.ts';
import type { AddTruePointAccountBody, TruePointAccount, TruePointEquipment } from '../../protocol/api/truepoint.ts';
import type { Page } from './devices.ts';
import { request } from './request.ts';

// Shapes of the commerce calls: protocol/api/commerce.ts and truepoint.ts.
export type { DemandField, Licence, MonthlyBill, OrderLine, PayAnswer, PaymentMode, TruePointAccount, TruePointEquipment };
/** An order or bill as the list calls answer it; amounts in minor units (fen). */
export type Order = OrderView;
export type OrderQuery = ConsoleQuery<OrderListQuery>;
export type NewOrder = CreateOrderBody;
export type Invoice = InvoiceFields;
export type LicenceQuery = ConsoleQuery<LicenceListQuery>;
export type Demand = DemandView;
/** The add and update calls' body. */
export type DemandForm = DemandBody;

export const commerceApi = {
  paymentMode: () => request<PaymentMode>({ method: 'GET', url: '/payment/mode' }),
  orders: (q: OrderQuery) => request<Page<Order>>({ method: 'GET', url: '/link-card-order/list', params: { ...q } }),
  bills: (q: OrderQuery) => request<Page<Order>>({ method: 'GET', url: '/link-card-bill/list', params: { ...q } }),
  monthly: (year: number) => request<MonthlyBills>({ method: 'GET', url: '/link-card-bill/monthly', params: { year } }),
  monthlyDetail: (month: string, pageNum: number, pageSize: number) => request<Page<BilledCard>>({ method: 'GET', url: '/link-card-bill/detail-list', params: { month, pageNum, pageSize } }),
  /** `silent` when a form shows the refusal itself (on the count it names). */
  create: (order: NewOrder, options: { silent?: boolean } = {}) => request<CreatedOrder>({ method: 'POST', url: '/pay-data/createOrder', data: order, ...options }),
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

/** ISOBUS activation codes. */
export const licenceApi = {
  list: (q: LicenceQuery) => request<Page<Licence>>({ method: 'GET', url: '/iso-bus/list', params: { ...q } }),
  exportUrl: '/iso-bus/export',
  exportCsv: (q: Omit<LicenceQuery, 'pageNum' | 'pageSize'>) => request<Blob>({ method: 'GET', url: '/iso-bus/export', params: { ...q }, responseType: 'blob' }),
  // Silent: the generate form shows a failure on its field or as its toast.
  generate: (count: number, label: string) => request<{ codes: string[] }>({ method: 'POST', url: '/iso-bus/generate', data: { count, label }, silent: true }),
  distribute: (ids: readonly number[], label: string) => request<null>({ method: 'POST', url: '/iso-bus/distribute', data: { ids, label } }),
  activate: (code: string, sn: string) => request<ActivatedLicence>({ method: 'POST', url: '/isobus-activate/activate', data: { code, sn } }),
};

/** Order demand forms. */
export const demandApi = {
  list: (q: ConsoleQuery<DemandListQuery>) =>
    request<Page<Demand>>({ method: 'GET', url: '/order-requirements/list', params: { ...q } }),
  // Form calls: the demand dialog shows a refusal on its field (or as a toast).
  add: (f: DemandForm) => request<Demand>({ method: 'POST', url: '/order-requirements/add', data: f, silent: true }),
  update: (f: DemandForm) => request<null>({ method: 'POST', url: '/order-requirements/update', data: f, silent: true }),
  remove: (id: number) => request<null>({ method: 'DELETE', url: '/order-requirements/delete', data: { id } }),
  addSame: (id: number) => request<Demand>({ method: 'POST', url: '/order-requirements/add-same', data: { id } }),
  addMore: (id: number, quantity: number) => request<Demand>({ method: 'POST', url: '/order-requirements/add-more', data: { id, quantity } }),
  submit: (id: number) => request<null>({ method: 'POST', url: '/order-requirements/submit', data: { id } }),
  finish: (id: number) => request<null>({ method: 'POST', url: '/order-requirements/finish', data: { id } }),
  review: (id: number, approve: boolean, reason?: string) => request<null>({ method: 'POST', url: '/order-requirements/review', data: { id, approve, ...(reason ? { reason } : {}) } }),
  publicView: (number: string, token: string) => request<Omit<Demand, 'shareToken'>>({ method: 'GET', url: '/order-demand-detail/view', params: { number, token } }),
};

export const truePointApi = {
  accounts: (pageNum: number, pageSize: number) => request<Page<TruePointAccount>>({ method: 'GET', url: '/true-point/account/list', params: { pageNum, pageSize } }),
  /** Platform staff only: a new service account waiting for activation. */
  addAccount: (a: AddTruePointAccountBody) =>
    request<{ id: number; accountNo: string }>({ method: 'POST', url: '/true-point/account/add', data: a, silent: true }),
  activate: (id: number) => request<null>({ method: 'POST', url: '/true-point/account/activate', data: { id } }),
  setState: (id: number, state: 1 | 2 | 3) => request<null>({ method: 'POST', url: '/true-point/account/state', data: { id, state } }),
  equipment: (accountId?: number) => request<Page<TruePointEquipment>>({ method: 'GET', url: '/true-point/equipment/list', params: { accountId } }),
  disable: (id: number, disabled: boolean) => request<null>({ method: 'POST', url: '/true-point/equipment/disable', data: { id, disabled } }),
};
