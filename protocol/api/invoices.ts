// Invoices as a workflow (issue 20): a buyer requests one for a paid order, platform staff issue it with the
// number from the tax system. One definition of the shape and checks for the console and the server.

/** Invoice type: PLAIN ordinary VAT invoice, VAT special VAT invoice (devices-and-commerce section 4). */
export type InvoiceTypeName = 'PLAIN' | 'VAT';

/** The buyer's fields an invoice of each type asks for; the dialog shows these only, the server keeps these only. */
export const INVOICE_FIELDS: Readonly<Record<InvoiceTypeName, readonly InvoiceField[]>> = {
  PLAIN: ['header', 'taxCode'],
  VAT: ['header', 'taxCode', 'bank', 'bankAccount', 'address', 'telephone'],
};
export type InvoiceField = 'header' | 'taxCode' | 'bank' | 'bankAccount' | 'address' | 'telephone';

/** Fields a type requires: the header always, every company field for a special VAT invoice. */
export const INVOICE_REQUIRED: Readonly<Record<InvoiceTypeName, readonly InvoiceField[]>> = {
  PLAIN: ['header'],
  VAT: INVOICE_FIELDS.VAT,
};

/** Unified social credit code (18) or the older 15-20 character taxpayer number. */
export const TAX_CODE = /^([0-9A-HJ-NPQRTUWXY]{18}|[0-9A-Z]{15,20})$/;
/** A bank account number: 8 to 30 digits, spaces allowed between groups. */
export const BANK_ACCOUNT = /^\d[\d ]{6,38}\d$/;
/** A company telephone: landline with area code or mobile, digits with - ( ) + and spaces, 7 to 20 long. */
export const INVOICE_TELEPHONE = /^[+(]?\d[\d\- ()]{5,18}\d$/;
/** An issued invoice's number as the tax system gives it: 8 to 20 digits. */
export const INVOICE_NO = /^\d{8,20}$/;

/** Where an order's invoice is: asked for by the buyer, or issued by staff. */
export type InvoiceStage = 'requested' | 'issued';

/** An order's invoice as the order list answers it. */
export interface OrderInvoice {
  readonly type: InvoiceTypeName;
  readonly header: string;
  readonly taxCode: string;
  readonly bank: string;
  readonly bankAccount: string;
  readonly address: string;
  readonly telephone: string;
  readonly state: InvoiceStage;
  readonly requestedAt: number | null;
  /** Set when issued: the invoice number, when, and the amount invoiced in fen (the order's paid amount). */
  readonly number: string | null;
  readonly issuedAt: number | null;
  readonly amount: number | null;
}

/** The problem with one invoice field for a type, as a message key of the console, or undefined when fine. */
export function invoiceFieldProblem(type: InvoiceTypeName, field: InvoiceField, value: string): 'required' | 'taxCode' | 'bankAccount' | 'telephone' | undefined {
  const v = value.trim();
  if (v === '') return INVOICE_REQUIRED[type].includes(field) ? 'required' : undefined;
  if (field === 'taxCode' && !TAX_CODE.test(v.toUpperCase())) return 'taxCode';
  if (field === 'bankAccount' && !BANK_ACCOUNT.test(v)) return 'bankAccount';
  if (field === 'telephone' && !INVOICE_TELEPHONE.test(v)) return 'telephone';
  return undefined;
}
