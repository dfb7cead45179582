import * as z from 'zod';
import { unitAmountDecimalParam } from '#shared/catalogue/schemas.ts';
import {
  booleanParam,
  createdParam,
  currencyParam,
  emptyable,
  expandParam,
  idParam,
  integerParam,
  metadataParam,
  stringParam,
  unixTimeParam,
  v1ListParams,
} from '#shared/wire/params.ts';

const periodParam = () =>
  z
    .strictObject({
      start: unixTimeParam().describe('The start of the period. This value is inclusive.'),
      end: unixTimeParam().describe('The end of the period, which must be greater than or equal to the start. This value is inclusive.'),
    })
    .describe('The period associated with this invoice item.');

const priceDataParam = () =>
  z
    .strictObject({
      currency: currencyParam().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
      product: idParam().describe('The ID of the Product that this Price will belong to.'),
      tax_behavior: z.enum(['exclusive', 'inclusive', 'unspecified']).optional().describe('Whether the price is inclusive or exclusive of taxes.'),
      unit_amount: integerParam(0, 99_999_999).optional().describe('A non-negative integer in the smallest currency unit representing how much to charge.'),
      unit_amount_decimal: unitAmountDecimalParam().optional().describe('Same as `unit_amount`, but a decimal with at most 12 decimal places.'),
    })
    .describe('Data used to generate a new Price object inline.');

/** A signed amount in the smallest currency unit (a negative item credits the invoice), as the reference bounds it. */
const signedAmount = () => integerParam(-99_999_999, 99_999_999);
const signedDecimal = () => z.string().regex(/^-?\d{1,12}(\.\d{1,12})?$/, 'must be a decimal with at most 12 decimal places');

const itemFields = {
  amount: signedAmount().optional().describe('The integer amount in the smallest currency unit of the charge to be applied to the upcoming invoice.'),
  description: stringParam(500).optional().describe('An arbitrary string which you can attach to the invoice item.'),
  discountable: booleanParam().optional().describe('Controls whether discounts apply to this invoice item.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  period: periodParam().optional(),
  price: idParam().optional().describe('The ID of a one-time price (the spelling of versions before `pricing`).'),
  pricing: z
    .strictObject({ price: idParam().optional().describe('The ID of the price object.') })
    .optional()
    .describe('The pricing information for the invoice item.'),
  price_data: priceDataParam().optional(),
  quantity: integerParam(0, 100_000_000).optional().describe('Non-negative integer. The quantity of units for the invoice item.'),
  unit_amount_decimal: signedDecimal().optional().describe('The decimal unit amount in the smallest currency unit, with at most 12 decimal places.'),
};

export const createInvoiceItemParams = z.strictObject({
  ...itemFields,
  customer: idParam().optional().describe('The ID of the customer who will be billed when this invoice item is billed.'),
  currency: currencyParam().optional().describe('Three-letter ISO currency code, in lowercase.'),
  invoice: idParam().optional().describe('The ID of an existing draft invoice to add this invoice item to.'),
  subscription: idParam().optional().describe('The ID of a subscription to add this invoice item to.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const updateInvoiceItemParams = z.strictObject({
  ...itemFields,
  description: emptyable(stringParam(500)).optional().describe('An arbitrary string which you can attach to the invoice item.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const listInvoiceItemsParams = z.strictObject({
  ...v1ListParams,
  created: createdParam().optional().describe('Only return invoice items created during the given interval.'),
  customer: idParam().optional().describe('The identifier of the customer whose invoice items to return.'),
  invoice: idParam().optional().describe('Only return invoice items belonging to this invoice.'),
  pending: booleanParam().optional().describe('true: only items not yet on an invoice; false: only items on one.'),
});

export const noParams = z.strictObject({ expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.') });

const collectionMethodParam = () => z.enum(['charge_automatically', 'send_invoice']);

export const createInvoiceParams = z.strictObject({
  customer: idParam().optional().describe('The ID of the customer who will be billed.'),
  auto_advance: booleanParam().optional().describe('Whether the service finalizes this draft about an hour after creation (default true).'),
  collection_method: collectionMethodParam().optional().describe('Either `charge_automatically` (default) or `send_invoice`.'),
  currency: currencyParam().optional().describe('The currency to create this invoice in (default: that of the pending items, else usd).'),
  days_until_due: integerParam(0, 730).optional().describe('The number of days from when the invoice is finalized until it is due (send_invoice only).'),
  due_date: unixTimeParam().optional().describe('The date on which payment for this invoice is due (send_invoice only).'),
  description: stringParam(1500).optional().describe('An arbitrary string attached to the object.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  pending_invoice_items_behavior: z
    .enum(['exclude', 'include'])
    .optional()
    .describe("How to handle the customer's pending invoice items: `exclude` (default) or `include` them."),
  subscription: idParam().optional().describe('Subscription invoices are made by their subscription; a manual invoice refuses this.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const updateInvoiceParams = z.strictObject({
  auto_advance: booleanParam().optional().describe('Whether the service performs automatic collection of the invoice.'),
  collection_method: collectionMethodParam().optional().describe('Either `charge_automatically` or `send_invoice` (drafts only).'),
  days_until_due: integerParam(0, 730).optional().describe('The number of days from finalization until the invoice is due (drafts only).'),
  due_date: unixTimeParam().optional().describe('The date on which payment for this invoice is due (drafts only).'),
  description: emptyable(stringParam(1500)).optional().describe('An arbitrary string attached to the object.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const listInvoicesParams = z.strictObject({
  ...v1ListParams,
  collection_method: collectionMethodParam().optional().describe('The collection method of the invoices to retrieve.'),
  created: createdParam().optional().describe('Only return invoices created during the given interval.'),
  customer: idParam().optional().describe('Only return invoices for the customer specified by this customer ID.'),
  due_date: unixTimeParam().optional().describe('Only return invoices due at exactly this time (Unix seconds).'),
  status: z.enum(['draft', 'open', 'paid', 'uncollectible', 'void']).optional().describe('The status of the invoices to retrieve.'),
  subscription: idParam().optional().describe('Only return invoices for the subscription specified by this subscription ID.'),
});

export const finalizeInvoiceParams = z.strictObject({
  auto_advance: booleanParam().optional().describe('Whether the service performs automatic collection of the invoice.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const payInvoiceParams = z.strictObject({
  paid_out_of_band: booleanParam().optional().describe('Whether the invoice was paid outside this service (no charge is made).'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const listInvoiceLinesParams = z.strictObject({ ...v1ListParams });

export type CreateInvoiceItemParams = z.output<typeof createInvoiceItemParams>;
export type UpdateInvoiceItemParams = z.output<typeof updateInvoiceItemParams>;
export type CreateInvoiceParams = z.output<typeof createInvoiceParams>;
export type UpdateInvoiceParams = z.output<typeof updateInvoiceParams>;
export type PayInvoiceParams = z.output<typeof payInvoiceParams>;
