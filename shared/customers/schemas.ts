import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import { booleanParam, emptyable, expandParam, idParam, integerParam, metadataParam, stringParam, v1ListParams } from '#shared/http/params.ts';

const address = z.strictObject({
  city: stringParam(200).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be a two-letter ISO country code')
    .optional(),
  line1: stringParam(200).optional(),
  line2: stringParam(200).optional(),
  postal_code: stringParam(20).optional(),
  state: stringParam(200).optional(),
});

const shipping = z.strictObject({ address, name: z.string().min(1).max(256), phone: stringParam(30).optional() });

const email = z
  .string()
  .max(512)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');

const fields = {
  address: emptyable(address).optional(),
  balance: integerParam(-99_999_999_999, 99_999_999_999).optional(),
  description: emptyable(stringParam(350)).optional(),
  email: emptyable(email).optional(),
  invoice_prefix: z
    .string()
    .regex(/^[A-Z0-9]{3,12}$/, 'must be 3 to 12 uppercase letters or digits')
    .optional(),
  metadata: metadataParam().optional(),
  name: emptyable(stringParam(256)).optional(),
  next_invoice_sequence: integerParam(1, 1_000_000_000).optional(),
  phone: emptyable(stringParam(30)).optional(),
  preferred_locales: emptyable(z.array(z.string().min(2).max(20)).max(10)).optional(),
  shipping: emptyable(shipping).optional(),
  tax_exempt: emptyable(z.enum(['exempt', 'none', 'reverse'])).optional(),
  /** A card or bank account token (`tok_…`): attached, and made the default source. */
  source: idParam().optional(),
  expand: expandParam('customer').optional(),
};

export const createCustomerParams = z.strictObject(fields);
/** On update `source` replaces the default source (the old one is deleted); `default_source` picks one of the customer's sources. */
export const updateCustomerParams = z.strictObject({ ...fields, default_source: idParam().optional() });
export const retrieveCustomerParams = z.strictObject({ expand: expandParam('customer').optional() });
export const listCustomersParams = z.strictObject({ ...v1ListParams, expand: expandParam(listOf('customer')).optional() });
export const deleteCustomerParams = z.strictObject({});

const sourceExpand = { expand: expandParam('customer_source').optional() };

export const listSourcesParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('customer_source')).optional(),
  object: z.enum(['card', 'bank_account', 'source', 'account']).optional(),
});
export const createSourceParams = z.strictObject({
  source: idParam(),
  metadata: metadataParam().optional(),
  validate: booleanParam().optional(),
  ...sourceExpand,
});
export const retrieveSourceParams = z.strictObject(sourceExpand);
/** A deleted source shows no customer to expand. */
export const deleteSourceParams = z.strictObject({ expand: expandParam().optional() });

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
  name: emptyable(stringParam(200)).optional(),
  address_city: emptyable(stringParam(200)).optional(),
  address_country: emptyable(stringParam(200)).optional(),
  address_line1: emptyable(stringParam(200)).optional(),
  address_line2: emptyable(stringParam(200)).optional(),
  address_state: emptyable(stringParam(200)).optional(),
  address_zip: emptyable(stringParam(20)).optional(),
  exp_month: expiryPart(12).optional(),
  exp_year: expiryPart(9999).optional(),
  account_holder_name: emptyable(stringParam(200)).optional(),
  account_holder_type: z.enum(['company', 'individual']).optional(),
  metadata: metadataParam().optional(),
  ...sourceExpand,
});

/** The two micro-deposit amounts, in cents, that verify a bank account (test mode: 32 and 45, as in the reference). */
export const verifySourceParams = z.strictObject({
  amounts: z.array(integerParam(1, 99)).length(2, 'give the two amounts deposited, in cents'),
  ...sourceExpand,
});

export type CustomerParams = z.output<typeof createCustomerParams> & { default_source?: string };
export type CreateSourceParams = z.output<typeof createSourceParams>;
export type UpdateSourceParams = z.output<typeof updateSourceParams>;
export type VerifySourceParams = z.output<typeof verifySourceParams>;
