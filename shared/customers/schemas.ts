import * as z from 'zod';
import { emptyable, expandParam, integerParam, metadataParam, stringParam, v1ListParams } from '#shared/http/params.ts';

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
  expand: expandParam().optional(),
};

export const createCustomerParams = z.strictObject(fields);
export const updateCustomerParams = z.strictObject(fields);
export const retrieveCustomerParams = z.strictObject({ expand: expandParam().optional() });
export const listCustomersParams = z.strictObject(v1ListParams);
export const deleteCustomerParams = z.strictObject({});

export type CustomerParams = z.output<typeof createCustomerParams>;
