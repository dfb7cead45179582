import * as z from 'zod';
import { booleanParam, emptyable, expandParam, idParam, integerParam, metadataParam, stringParam, v1ListParams } from '#shared/http/params.ts';

export const currencyParam = () =>
  z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO currency code')
    .transform((code) => code.toLowerCase());

const productFields = {
  name: z.string().min(1, 'the name cannot be empty').max(250),
  active: booleanParam().optional(),
  description: emptyable(stringParam(40_000)).optional(),
  images: z.array(z.url()).max(8).optional(),
  metadata: metadataParam().optional(),
  statement_descriptor: z
    .string()
    .max(22)
    .regex(/^[^<>\\'"*]*$/, 'cannot contain <, >, \\, \', " or *')
    .optional(),
  tax_code: z
    .string()
    .regex(/^txcd_\d{8}$/, 'must be a tax code such as txcd_10000000')
    .optional(),
  unit_label: z.string().max(12).optional(),
  url: z.url().optional(),
};

export const createProductParams = z.strictObject({ ...productFields, expand: expandParam().optional() });
export const retrieveProductParams = z.strictObject({ expand: expandParam().optional() });
export const listProductsParams = z.strictObject({ ...v1ListParams, active: booleanParam().optional() });

export const recurringParam = () =>
  z.strictObject({
    interval: z.enum(['day', 'week', 'month', 'year']),
    interval_count: integerParam(1, 365).optional(),
    usage_type: z.literal('licensed', 'only licensed (per-seat) usage is supported').optional(),
  });

/** Minor units with up to 12 decimal places, as the reference's `unit_amount_decimal`. */
export const unitAmountDecimalParam = () => z.string().regex(/^\d{1,12}(\.\d{1,12})?$/, 'must be a decimal with at most 12 decimal places');

export const createPriceParams = z.strictObject({
  currency: currencyParam(),
  product: idParam().optional(),
  product_data: z
    .strictObject({
      name: productFields.name,
      active: booleanParam().optional(),
      metadata: metadataParam().optional(),
      statement_descriptor: productFields.statement_descriptor,
      tax_code: productFields.tax_code,
      unit_label: productFields.unit_label,
    })
    .optional(),
  unit_amount: integerParam(0, 99_999_999).optional(),
  unit_amount_decimal: unitAmountDecimalParam().optional(),
  recurring: recurringParam().optional(),
  active: booleanParam().optional(),
  lookup_key: z.string().min(1).max(200).optional(),
  metadata: metadataParam().optional(),
  nickname: z.string().max(250).optional(),
  tax_behavior: z.enum(['exclusive', 'inclusive', 'unspecified']).optional(),
  expand: expandParam(['product']).optional(),
});
export const retrievePriceParams = z.strictObject({ expand: expandParam(['product']).optional() });
export const listPricesParams = z.strictObject({
  ...v1ListParams,
  active: booleanParam().optional(),
  currency: currencyParam().optional(),
  product: idParam().optional(),
  type: z.enum(['one_time', 'recurring']).optional(),
});

export type CreateProductParams = z.output<typeof createProductParams>;
export type CreatePriceParams = z.output<typeof createPriceParams>;
