// Orders, bills, payment and invoices; ISOBUS activation codes; order demands
// (devices-and-commerce sections 3, 4 and 9): request schemas written with TypeBox, their types derived,
// and the answers' shapes: one definition for the server and the console. True-point service accounts:
// protocol/api/truepoint.ts.
import { type Static, Type } from 'typebox';
import { DemandKind, FormFieldType, InvoiceType, PaymentState, PayMethod, PurchaseType, SimFormFactor } from '../catalogue/enums.ts';
import { IDENTITY_RULES, type IdentityRule } from '../rules/identity-rules.ts';
import { Among, Id, IdPath, LongText, OneOf, OptionalQueryPaging, Text } from './common.ts';
import type { OrderInvoice } from './invoices.ts';

const ICCID = Type.String({ pattern: '^[0-9A-Fa-f]{19,20}$' });
const ORDER_NO = Type.String({ pattern: '^[A-Z0-9]{8,40}$' });
/** A month as "YYYY-MM". */
const MONTH = Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$' });
const values = (o: Record<string, string>): string[] => Object.values(o);

// ---- Orders, bills, payment ----

/** GET /link-card-order/list and /link-card-bill/list. */
export const OrderListQuery = Type.Object(
  {
    ...OptionalQueryPaging,
    orderNo: Type.Optional(Type.String({ maxLength: 40 })),
    type: Type.Optional(Among(values(PurchaseType))),
    tradeState: Type.Optional(Among(values(PaymentState))),
  },
  { additionalProperties: false },
);
export type OrderListQuery = Static<typeof OrderListQuery>;

/** What /pay-data/createOrder sells. */
export const ORDER_TYPES = ['flow', 'monthly_function_fee', 'sim', 'unify_sim', 'zxj_flow', 'zxj_monthly_function_fee', 'zxj_sim', 'zxj_unify_sim', 'iso_bus_activation_code'] as const;

// Counts are typed as text in the console and arrive as numbers; "positive integer" is checked by the
// server so that the message is the spec's.
/** POST /pay-data/createOrder. */
export const CreateOrderBody = Type.Object(
  {
    type: OneOf(ORDER_TYPES),
    /** Per card: GB of traffic (flow) or months (zxj_flow). */
    cards: Type.Optional(Type.Array(Type.Object({ iccid: ICCID, count: Type.Number() }, { additionalProperties: false }), { maxItems: 1000 })),
    month: Type.Optional(MONTH),
    quantity: Type.Optional(Type.Number()),
    formFactor: Type.Optional(Among(values(SimFormFactor))),
    logistics: Type.Optional(
      Type.Object({ area: Text, address: LongText, contact: Text, phone: Type.String({ maxLength: 32 }) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

/** POST /pay-data/pay. */
export const PayBody = Type.Object(
  { orderNo: ORDER_NO, payMethod: OneOf(values(PayMethod)), transferAmount: Type.Optional(Type.String({ maxLength: 20 })) },
  { additionalProperties: false },
);
export type PayBody = Static<typeof PayBody>;

/** Calls on one order: /pay-data/close, /payment/sandbox/pay, /link-card-order/confirmOffline and /receive. */
export const OrderNoBody = Type.Object({ orderNo: ORDER_NO }, { additionalProperties: false });
export type OrderNoBody = Static<typeof OrderNoBody>;

/** POST /link-card-order/ship. */
export const ShipBody = Type.Object({ orderNo: ORDER_NO, trackingNo: Type.String({ maxLength: 40 }) }, { additionalProperties: false });
export type ShipBody = Static<typeof ShipBody>;

/** POST /payment/notify: the payment provider's form fields, as text. */
export const NotifyBody = Type.Record(Type.String(), Type.String({ maxLength: 512 }), { maxProperties: 40 });
export type NotifyBody = Static<typeof NotifyBody>;

/** The buyer's fields of an invoice request (which a type needs: protocol/api/invoices.ts). */
const InvoiceProperties = {
  type: OneOf(Object.values(InvoiceType)),
  header: Text,
  taxCode: Type.Optional(Type.String({ maxLength: 32 })),
  bank: Type.Optional(Text),
  bankAccount: Type.Optional(Type.String({ maxLength: 64 })),
  address: Type.Optional(Text),
  telephone: Type.Optional(Type.String({ maxLength: 32 })),
};
/** An invoice request without its orders, as the console's dialog holds it. */
export const InvoiceFields = Type.Object(InvoiceProperties, { additionalProperties: false });
export type InvoiceFields = Static<typeof InvoiceFields>;

/** POST /link-card-order/invoice. */
export const InvoiceBody = Type.Object({ orderNos: Type.Array(ORDER_NO, { minItems: 1, maxItems: 100 }), ...InvoiceProperties }, { additionalProperties: false });
export type InvoiceBody = Static<typeof InvoiceBody>;

/** POST /link-card-order/issueInvoice (platform staff). */
export const IssueInvoiceBody = Type.Object({ orderNo: ORDER_NO, invoiceNo: Type.String({ maxLength: 32 }) }, { additionalProperties: false });
export type IssueInvoiceBody = Static<typeof IssueInvoiceBody>;

/** GET /link-card-bill/monthly. */
export const MonthlyQuery = Type.Object({ year: Type.Optional(Type.String({ pattern: '^20[0-9]{2}$' })) }, { additionalProperties: false });
export type MonthlyQuery = Static<typeof MonthlyQuery>;

/** GET /link-card-bill/detail-list. */
export const DetailListQuery = Type.Object({ ...OptionalQueryPaging, month: MONTH }, { additionalProperties: false });
export type DetailListQuery = Static<typeof DetailListQuery>;

/** One line of an order; amounts in minor units (fen). */
export interface OrderLine {
  readonly item: string;
  readonly iccid?: string;
  readonly quantity: number;
  readonly unit: string;
  readonly unitPrice: number;
  readonly total: number;
}

/** Where a card purchase is once paid: the parcel, its tracking number and the cards it delivered. */
export interface OrderLogistics {
  readonly area: string;
  readonly address: string;
  readonly contact: string;
  readonly phone: string;
  readonly simType: string;
  readonly shipping?: 'to_ship' | 'shipped' | 'received';
  readonly trackingNo?: string;
  readonly shippedAt?: number;
  readonly receivedAt?: number;
  readonly iccids?: readonly string[];
}

/** An order or bill as the list calls answer it; amounts in minor units (fen). */
export interface OrderView {
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
  readonly logistics: OrderLogistics | null;
  readonly billMonth: string | null;
  readonly createdAt: number;
  readonly paidAt: number | null;
  readonly confirmedBy: string;
}

/** One month of /link-card-bill/monthly. */
export interface MonthlyBill {
  readonly month: string;
  readonly cardCount: number;
  readonly unitPrice: number;
  readonly amount: number;
  readonly orderNo: string;
  readonly tradeState: string;
}

/** Answer of /link-card-bill/monthly. */
export interface MonthlyBills {
  readonly year: number;
  readonly list: readonly MonthlyBill[];
}

/** One card of a month's bill (/link-card-bill/detail-list). */
export interface BilledCard {
  readonly iccid: string;
  readonly msisdn: string;
  readonly carrier: string;
  readonly cardStatus: number;
  readonly activatedAt: number;
  readonly expireTime: number;
  readonly fee: number;
}

/** Answer of /pay-data/createOrder. */
export interface CreatedOrder {
  readonly orderNo: string;
  readonly amount: number;
  readonly lines: readonly OrderLine[];
}

/** Answer of /pay-data/pay: where to pay online, or the bank account of a transfer. */
export type PayAnswer =
  | { readonly payMethod: 'alipay'; readonly tradeNo: string; readonly payUrl: string; readonly sandbox: boolean }
  | { readonly payMethod: 'offline'; readonly bank: { readonly company: string; readonly bank: string; readonly account: string }; readonly amountText: string };

/** How this server takes payment: online at all, through the sandbox, and whether the caller may complete sandbox trades. */
export interface PaymentMode {
  readonly online: boolean;
  readonly sandbox: boolean;
  readonly canSettle: boolean;
  /** Platform staff: they confirm offline transfers and issue invoices. */
  readonly staff: boolean;
}

// ---- ISOBUS activation codes ----

/** GET /iso-bus/list and /iso-bus/export. */
export const LicenceListQuery = Type.Object(
  {
    ...OptionalQueryPaging,
    label: Type.Optional(Text),
    code: Type.Optional(Type.String({ maxLength: 19 })),
    status: Type.Optional(Among<string>(['0', '1', '2'])),
  },
  { additionalProperties: false },
);
export type LicenceListQuery = Static<typeof LicenceListQuery>;

/** Most codes one /iso-bus/generate call makes. */
export const MAX_GENERATE = 500;

/** POST /iso-bus/generate (platform staff; orgId: for whom). */
export const GenerateLicencesBody = Type.Object(
  { count: Type.Integer({ minimum: 1, maximum: MAX_GENERATE }), label: Type.Optional(Text), orgId: Type.Optional(Id) },
  { additionalProperties: false },
);
export type GenerateLicencesBody = Static<typeof GenerateLicencesBody>;

/** Most codes one /iso-bus/distribute call labels. */
export const MAX_DISTRIBUTE = 1000;

/** POST /iso-bus/distribute: labels codes for a customer. */
export const DistributeLicencesBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: MAX_DISTRIBUTE }), label: Text }, { additionalProperties: false });
export type DistributeLicencesBody = Static<typeof DistributeLicencesBody>;

/** POST /isobus-activate/activate (a device). */
export const ActivateLicenceBody = Type.Object({ code: Type.String({ maxLength: 32 }), sn: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
export type ActivateLicenceBody = Static<typeof ActivateLicenceBody>;

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

/** Answer of /isobus-activate/activate. */
export interface ActivatedLicence {
  readonly code: string;
  readonly sn: string;
  readonly expireTime: number;
}

// ---- Order demands ----

/** A fitting's SKU and other short codes. */
export const MAX_SHORT_TEXT = 64;
/** A demand's special needs. */
export const MAX_SPECIAL_NEEDS = 2000;
const ShortText = Type.String({ maxLength: MAX_SHORT_TEXT });

/** One field of a demand's form. */
export const DemandField = Type.Object(
  {
    label: ShortText,
    type: OneOf(values(FormFieldType)),
    value: Type.Union([Type.String({ maxLength: 2000 }), Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50 })]),
    options: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50 })),
    /** A check a text value must pass (phone, national ID, plate, VIN). */
    rule: Type.Optional(Type.Unsafe<IdentityRule>({ type: 'string', enum: [...IDENTITY_RULES] })),
  },
  { additionalProperties: false },
);
export type DemandField = Static<typeof DemandField>;

/** A fitting (SKU and count) of a demand. */
export const DemandFitting = Type.Object({ sku: ShortText, number: Type.Number() }, { additionalProperties: false });
export type DemandFitting = Static<typeof DemandFitting>;

/** POST /order-requirements/add and /update (with id). */
export const DemandBody = Type.Object(
  {
    id: Type.Optional(Id),
    name: Text,
    customer: Text,
    kind: Among(values(DemandKind)),
    model: Text,
    template: Type.Optional(Text),
    fittings: Type.Array(DemandFitting, { maxItems: 100 }),
    fields: Type.Array(DemandField, { maxItems: 50 }),
    quantity: Type.Number(),
    specialNeeds: Type.Optional(Type.String({ maxLength: MAX_SPECIAL_NEEDS })),
    submit: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type DemandBody = Static<typeof DemandBody>;

/** GET /order-requirements/list. */
export const DemandListQuery = Type.Object(
  {
    ...OptionalQueryPaging,
    number: Type.Optional(Type.String({ maxLength: 40 })),
    customer: Type.Optional(Text),
    state: Type.Optional(Among<string>(['0', '1', '2', '3', '4'])),
  },
  { additionalProperties: false },
);
export type DemandListQuery = Static<typeof DemandListQuery>;

/** GET /order-requirements/detail/:id. */
export const DemandPath = IdPath;

/** DELETE /order-requirements/delete. */
export const DemandIdBody = Type.Object({ id: Id }, { additionalProperties: false });
export type DemandIdBody = Static<typeof DemandIdBody>;

/** /order-requirements/add-same, /add-more (quantity), /submit and /finish. */
export const DemandActionBody = Type.Object({ id: Id, reason: Type.Optional(LongText), quantity: Type.Optional(Type.Number()) }, { additionalProperties: false });
export type DemandActionBody = Static<typeof DemandActionBody>;

/** POST /order-requirements/review. */
export const DemandReviewBody = Type.Object({ id: Id, approve: Type.Boolean(), reason: Type.Optional(LongText) }, { additionalProperties: false });
export type DemandReviewBody = Static<typeof DemandReviewBody>;

/** GET /order-demand-detail/view: the shared link's number and token (public). */
export const DemandViewQuery = Type.Object({ number: Type.String({ maxLength: 40 }), token: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
export type DemandViewQuery = Static<typeof DemandViewQuery>;

/** An order demand form as /order-requirements/* answer it. */
export interface DemandView {
  readonly id: number;
  readonly number: string;
  readonly name: string;
  readonly customer: string;
  readonly kind: string;
  readonly model: string;
  readonly template: string;
  readonly fittings: readonly DemandFitting[];
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
