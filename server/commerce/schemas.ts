import { InvoiceType, PayMethod, PaymentState, PurchaseType, SimFormFactor } from '../../protocol/index.ts';
import { queryPaging } from '../http/paging.ts';
import { field } from '../http/validation.ts';

const values = (o: Record<string, string>) => Object.values(o);
const ICCID = { type: 'string', pattern: '^[0-9A-Fa-f]{19,20}$' } as const;
const ORDER_NO = { type: 'string', pattern: '^[A-Z0-9]{8,40}$' } as const;
const MONTH = { type: 'string', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$' } as const;
const paging = queryPaging;

export const orderListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...paging,
    orderNo: { type: 'string', maxLength: 40 },
    type: { type: 'string', enum: values(PurchaseType) },
    tradeState: { type: 'string', enum: values(PaymentState) },
  },
} as const;

export interface OrderListQuery {
  pageNum?: string;
  pageSize?: string;
  orderNo?: string;
  type?: string;
  tradeState?: string;
}

// Counts are typed as text in the console and arrive as numbers; "positive integer" is checked here so
// the message is the spec's, not Ajv's.
export const createOrderBody = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['flow', 'monthly_function_fee', 'sim', 'unify_sim', 'zxj_flow', 'zxj_sim', 'iso_bus_activation_code'] },
    cards: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['iccid', 'count'],
        properties: { iccid: ICCID, count: { type: 'number' } },
      },
    },
    month: MONTH,
    quantity: { type: 'number' },
    formFactor: { type: 'string', enum: values(SimFormFactor) },
    logistics: {
      type: 'object',
      additionalProperties: false,
      required: ['area', 'address', 'contact', 'phone'],
      properties: { area: field.text, address: field.longText, contact: field.text, phone: { type: 'string', maxLength: 32 } },
    },
  },
} as const;

export interface CreateOrderBody {
  type: 'flow' | 'monthly_function_fee' | 'sim' | 'unify_sim' | 'zxj_flow' | 'zxj_sim' | 'iso_bus_activation_code';
  /** Per card: GB of traffic (flow) or months (zxj_flow). */
  cards?: { iccid: string; count: number }[];
  month?: string;
  quantity?: number;
  formFactor?: string;
  logistics?: { area: string; address: string; contact: string; phone: string };
}

export const payBody = {
  type: 'object',
  additionalProperties: false,
  required: ['orderNo', 'payMethod'],
  properties: { orderNo: ORDER_NO, payMethod: { type: 'string', enum: values(PayMethod) }, transferAmount: { type: 'string', maxLength: 20 } },
} as const;

export interface PayBody {
  orderNo: string;
  payMethod: 'alipay' | 'offline';
  transferAmount?: string;
}

export const orderNoBody = { type: 'object', additionalProperties: false, required: ['orderNo'], properties: { orderNo: ORDER_NO } } as const;

export const notifyBody = { type: 'object', additionalProperties: { type: 'string', maxLength: 512 }, maxProperties: 40 } as const;

export const invoiceBody = {
  type: 'object',
  additionalProperties: false,
  required: ['orderNos', 'type', 'header'],
  properties: {
    orderNos: { type: 'array', items: ORDER_NO, minItems: 1, maxItems: 100 },
    type: { type: 'string', enum: values(InvoiceType) },
    header: field.text,
    taxCode: { type: 'string', maxLength: 32 },
    bank: field.text,
    bankAccount: { type: 'string', maxLength: 64 },
    address: field.text,
    telephone: { type: 'string', maxLength: 32 },
  },
} as const;

export const issueInvoiceBody = {
  type: 'object',
  additionalProperties: false,
  required: ['orderNo', 'invoiceNo'],
  properties: { orderNo: ORDER_NO, invoiceNo: { type: 'string', maxLength: 32 } },
} as const;

export interface IssueInvoiceBody {
  orderNo: string;
  invoiceNo: string;
}

export interface InvoiceBody {
  orderNos: string[];
  type: 'PLAIN' | 'VAT';
  header: string;
  taxCode?: string;
  bank?: string;
  bankAccount?: string;
  address?: string;
  telephone?: string;
}

export const monthlyQuery = { type: 'object', additionalProperties: false, properties: { year: { type: 'string', pattern: '^20[0-9]{2}$' } } } as const;
export const detailListQuery = { type: 'object', additionalProperties: false, required: ['month'], properties: { ...paging, month: MONTH } } as const;
