import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import { booleanParam, emptyable, expandParam, idParam, integerParam, metadataParam, stringParam, v1ListParams } from '#shared/http/params.ts';

export const currencyParam = () =>
  z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO currency code')
    .transform((code) => code.toLowerCase());

/** A package dimension: inches, or ounces for the weight; a positive number. */
const measureParam = () =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d+(\.\d+)?$/, 'must be a positive number')
        .transform(Number),
    ])
    .pipe(z.number().positive('must be a positive number').max(99_999_999));

const productFields = {
  name: z.string().min(1, 'the name cannot be empty').max(250),
  active: booleanParam().optional(),
  description: emptyable(stringParam(40_000)).optional(),
  images: z.array(z.url()).max(8).optional(),
  marketing_features: z
    .array(z.strictObject({ name: z.string().min(1).max(80) }))
    .max(15)
    .optional(),
  metadata: metadataParam().optional(),
  package_dimensions: z.strictObject({ height: measureParam(), length: measureParam(), weight: measureParam(), width: measureParam() }).optional(),
  shippable: booleanParam().optional(),
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

export const createProductParams = z.strictObject({ ...productFields, expand: expandParam('product').optional() });
/** An update takes what create takes (`''` clears what may be empty) and `default_price`, one of the product's own prices. */
export const updateProductParams = z.strictObject({
  ...productFields,
  name: productFields.name.optional(),
  default_price: idParam().optional(),
  images: emptyable(z.array(z.url()).max(8)).optional(),
  marketing_features: emptyable(productFields.marketing_features.unwrap()).optional(),
  package_dimensions: emptyable(productFields.package_dimensions.unwrap()).optional(),
  tax_code: emptyable(productFields.tax_code.unwrap()).optional(),
  unit_label: emptyable(productFields.unit_label.unwrap()).optional(),
  url: emptyable(productFields.url.unwrap()).optional(),
  expand: expandParam('product').optional(),
});
export const retrieveProductParams = z.strictObject({ expand: expandParam('product').optional() });
export const deleteProductParams = z.strictObject({});
export const listProductsParams = z.strictObject({ ...v1ListParams, expand: expandParam(listOf('product')).optional(), active: booleanParam().optional() });

export const recurringParam = () =>
  z.strictObject({
    interval: z.enum(['day', 'week', 'month', 'year']),
    interval_count: integerParam(1, 365).optional(),
    usage_type: z.literal('licensed', 'only licensed (per-seat) usage is supported').optional(),
  });

/** Minor units with up to 12 decimal places, as the reference's `unit_amount_decimal`. */
export const unitAmountDecimalParam = () => z.string().regex(/^\d{1,12}(\.\d{1,12})?$/, 'must be a decimal with at most 12 decimal places');

const taxBehaviorParam = () => z.enum(['exclusive', 'inclusive', 'unspecified']);

/** Tiers and customer-chosen amounts take part in the schema only to be refused with a clear message by the service. */
const currencyOptionParams = z.strictObject({
  unit_amount: integerParam(0, 99_999_999).optional(),
  unit_amount_decimal: unitAmountDecimalParam().optional(),
  tax_behavior: taxBehaviorParam().optional(),
  custom_unit_amount: z.record(z.string(), z.unknown()).optional(),
  tiers: z.array(z.unknown()).max(100).optional(),
});

/** `currency_options`: up to 50 more currencies, by ISO code (lowercased). */
const currencyOptionsParam = () =>
  z
    .record(z.string().regex(/^[A-Za-z]{3}$/, 'currency_options keys must be three-letter ISO currency codes'), currencyOptionParams)
    .refine((options) => Object.keys(options).length <= 50, 'currency_options can hold at most 50 currencies');

export type CurrencyOptionParams = z.output<typeof currencyOptionParams>;

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
  transfer_lookup_key: booleanParam().optional(),
  metadata: metadataParam().optional(),
  nickname: z.string().max(250).optional(),
  tax_behavior: taxBehaviorParam().optional(),
  currency_options: currencyOptionsParam().optional(),
  expand: expandParam('price').optional(),
});
export const updatePriceParams = z.strictObject({
  active: booleanParam().optional(),
  currency_options: emptyable(currencyOptionsParam()).optional(),
  lookup_key: emptyable(z.string().max(200)).optional(),
  transfer_lookup_key: booleanParam().optional(),
  metadata: metadataParam().optional(),
  nickname: emptyable(z.string().max(250)).optional(),
  tax_behavior: taxBehaviorParam().optional(),
  expand: expandParam('price').optional(),
});
export const retrievePriceParams = z.strictObject({ expand: expandParam('price').optional() });
export const listPricesParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('price')).optional(),
  active: booleanParam().optional(),
  currency: currencyParam().optional(),
  lookup_keys: z.array(z.string().max(200)).min(1).max(10).optional(),
  product: idParam().optional(),
  type: z.enum(['one_time', 'recurring']).optional(),
});

export type CreateProductParams = z.output<typeof createProductParams>;
export type UpdateProductParams = z.output<typeof updateProductParams>;
export type CreatePriceParams = z.output<typeof createPriceParams>;
export type UpdatePriceParams = z.output<typeof updatePriceParams>;
