import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import {
  addressParam,
  booleanParam,
  createdParam,
  emailParam,
  emptyable,
  expandParam,
  idParam,
  integerParam,
  maxEmailLength,
  metadataParam,
  phoneParam,
  stringParam,
  v1ListParams,
} from '#shared/wire/params.ts';

const address = addressParam();

const shipping = z.strictObject({
  address,
  name: z.string().min(1).max(256).describe('Customer name.'),
  phone: phoneParam().optional().describe('Customer phone (including extension).'),
});

const fields = {
  address: emptyable(address).optional().describe("The customer's address."),
  balance: integerParam(-99_999_999_999, 99_999_999_999)
    .optional()
    .describe("An integer amount in cents (or local equivalent) that represents the customer's current balance, which affect the customer's future invoices."),
  description: emptyable(stringParam(350)).optional().describe('An arbitrary string that you can attach to a customer object.'),
  email: emptyable(emailParam())
    .optional()
    .describe("Customer's email address. It's displayed alongside the customer in your dashboard and can be useful for searching and tracking."),
  invoice_prefix: z
    .string()
    .regex(/^[A-Z0-9]{3,12}$/, 'must be 3 to 12 uppercase letters or digits')
    .optional()
    .describe('The prefix for the customer used to generate unique invoice numbers.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  name: emptyable(stringParam(256)).optional().describe("The customer's full name or business name."),
  next_invoice_sequence: integerParam(1, 1_000_000_000).optional().describe("The sequence to be used on the customer's next invoice."),
  phone: emptyable(phoneParam()).optional().describe("The customer's phone number."),
  preferred_locales: emptyable(z.array(z.string().min(2).max(20)).max(10))
    .optional()
    .describe("Customer's preferred languages, ordered by preference."),
  shipping: emptyable(shipping).optional().describe("The customer's shipping information. Appears on invoices emailed to this customer."),
  tax_exempt: emptyable(z.enum(['exempt', 'none', 'reverse']))
    .optional()
    .describe("The customer's tax exemption. One of `none`, `exempt`, or `reverse`."),
  /** A card or bank account token (`tok_…`): attached, and made the default source. */
  source: idParam().optional().describe('A card or bank account token (`tok_…`): its card or bank account is attached and made the default source.'),
  expand: expandParam('customer').optional().describe('Specifies which fields in the response should be expanded.'),
};

export const createCustomerParams = z.strictObject({
  ...fields,
  /** Test mode only, set once: the customer and its billing objects live on the clock's time. */
  test_clock: idParam().optional().describe('ID of the test clock to attach to the customer.'),
});
/** On update `source` replaces the default source (the old one is deleted); `default_source` picks one of the customer's sources. */
export const updateCustomerParams = z.strictObject({
  ...fields,
  default_source: idParam().optional().describe("The id of one of the customer's sources, to make it the default source."),
});
export const retrieveCustomerParams = z.strictObject({
  expand: expandParam('customer').optional().describe('Specifies which fields in the response should be expanded.'),
});
/** `email` is matched exactly as stored (case-sensitive, as the reference); `test_clock` keeps a clock's customers. */
export const listCustomersParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('customer')).optional().describe('Specifies which fields in the response should be expanded.'),
  email: z
    .string()
    .max(maxEmailLength)
    .optional()
    .describe("A case-sensitive filter on the list based on the customer's `email` field. The value must be a string."),
  created: createdParam().optional().describe('Only return objects created during the given interval: Unix seconds, or `gt` / `gte` / `lt` / `lte` bounds.'),
  test_clock: idParam().optional().describe('Provides a list of customers that are associated with the specified test clock.'),
});
export const deleteCustomerParams = z.strictObject({});

const sourceExpand = { expand: expandParam('customer_source').optional().describe('Specifies which fields in the response should be expanded.') };

export const listSourcesParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('customer_source')).optional().describe('Specifies which fields in the response should be expanded.'),
  object: z.enum(['card', 'bank_account', 'source', 'account']).optional().describe('Filter sources according to a particular object type.'),
});
export const createSourceParams = z.strictObject({
  source: idParam().describe('A card or bank account token (`tok_…`), used up: its card or bank account is attached to the customer.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  validate: booleanParam().optional().describe("Accepted for compatibility with the reference's SDKs."),
  ...sourceExpand,
});
export const retrieveSourceParams = z.strictObject(sourceExpand);
/** A deleted source shows no customer to expand. */
export const deleteSourceParams = z.strictObject({ expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.') });

const expiryPart = (max: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\s*\d{1,4}\s*$/, 'must be a number')
        .transform((text) => Number(text.trim())),
    ])
    .pipe(z.number().int('must be a whole number').min(1).max(max));

/** A card takes name, address and expiry; a bank account its holder's name and type; both metadata. */
export const updateSourceParams = z.strictObject({
  name: emptyable(stringParam(200)).optional().describe('Cardholder name.'),
  address_city: emptyable(stringParam(200)).optional().describe('City/District/Suburb/Town/Village.'),
  address_country: emptyable(stringParam(200)).optional().describe('Billing address country, if provided when creating card.'),
  address_line1: emptyable(stringParam(200)).optional().describe('Address line 1 (Street address/PO Box/Company name).'),
  address_line2: emptyable(stringParam(200)).optional().describe('Address line 2 (Apartment/Suite/Unit/Building).'),
  address_state: emptyable(stringParam(200)).optional().describe('State/County/Province/Region.'),
  address_zip: emptyable(stringParam(20)).optional().describe('ZIP or postal code.'),
  exp_month: expiryPart(12).optional().describe("Two digit number representing the card's expiration month."),
  exp_year: expiryPart(9999).optional().describe("Four digit number representing the card's expiration year."),
  account_holder_name: emptyable(stringParam(200)).optional().describe('The name of the person or business that owns the bank account.'),
  account_holder_type: z
    .enum(['company', 'individual'])
    .optional()
    .describe('The type of entity that holds the account. This can be either `individual` or `company`.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  ...sourceExpand,
});

/** The two micro-deposit amounts, in cents, that verify a bank account (test mode: 32 and 45, as in the reference). */
export const verifySourceParams = z.strictObject({
  amounts: z
    .array(integerParam(1, 99))
    .length(2, 'give the two amounts deposited, in cents')
    .describe('Two positive integers, in *cents*, equal to the values of the microdeposits sent to the bank account.'),
  ...sourceExpand,
});

export type CustomerParams = z.output<typeof updateCustomerParams> & { test_clock?: string };
export type CreateSourceParams = z.output<typeof createSourceParams>;
export type UpdateSourceParams = z.output<typeof updateSourceParams>;
export type VerifySourceParams = z.output<typeof verifySourceParams>;
