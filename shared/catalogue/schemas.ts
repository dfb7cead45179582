import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
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
  v1ListParams,
} from '#shared/wire/params.ts';

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
  name: z.string().min(1, 'the name cannot be empty').max(250).describe("The product's name, meant to be displayable to the customer."),
  active: booleanParam().optional().describe('Whether the product is currently available for purchase.'),
  description: emptyable(stringParam(40_000)).optional().describe("The product's description, meant to be displayable to the customer."),
  images: z.array(z.url()).max(8).optional().describe('A list of up to 8 URLs of images for this product, meant to be displayable to the customer.'),
  marketing_features: z
    .array(z.strictObject({ name: z.string().min(1).max(80).describe("The product's name, meant to be displayable to the customer.") }))
    .max(15)
    .optional()
    .describe('A list of up to 15 marketing features for this product.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  package_dimensions: z
    .strictObject({
      height: measureParam().describe('Height, in inches. Maximum precision is 2 decimal places.'),
      length: measureParam().describe('Length, in inches. Maximum precision is 2 decimal places.'),
      weight: measureParam().describe('Weight, in ounces. Maximum precision is 2 decimal places.'),
      width: measureParam().describe('Width, in inches. Maximum precision is 2 decimal places.'),
    })
    .optional()
    .describe('The dimensions of this product for shipping purposes.'),
  shippable: booleanParam().optional().describe('Whether this product is shipped (i.e., physical goods).'),
  statement_descriptor: z
    .string()
    .max(22)
    .regex(/^[^<>\\'"*]*$/, 'cannot contain <, >, \\, \', " or *')
    .optional()
    .describe("An arbitrary string to be displayed on your customer's credit card or bank statement."),
  tax_code: z
    .string()
    .regex(/^txcd_\d{8}$/, 'must be a tax code such as txcd_10000000')
    .optional()
    .describe('A tax code ID.'),
  unit_label: z
    .string()
    .max(12)
    .optional()
    .describe(
      "A label that represents units of this product. When set, this will be included in customers' receipts, invoices, Checkout, and the customer portal.",
    ),
  url: z.url().optional().describe('A URL of a publicly-accessible webpage for this product.'),
};

export const createProductParams = z.strictObject({
  ...productFields,
  expand: expandParam('product').optional().describe('Specifies which fields in the response should be expanded.'),
});
/** An update takes what create takes (`''` clears what may be empty) and `default_price`, one of the product's own prices. */
export const updateProductParams = z.strictObject({
  ...productFields,
  name: productFields.name.optional().describe("The product's name, meant to be displayable to the customer."),
  default_price: idParam().optional().describe('The ID of the Price object that is the default price for this product.'),
  images: emptyable(z.array(z.url()).max(8)).optional().describe('A list of up to 8 URLs of images for this product, meant to be displayable to the customer.'),
  marketing_features: emptyable(productFields.marketing_features.unwrap()).optional().describe('A list of up to 15 marketing features for this product.'),
  package_dimensions: emptyable(productFields.package_dimensions.unwrap()).optional().describe('The dimensions of this product for shipping purposes.'),
  tax_code: emptyable(productFields.tax_code.unwrap()).optional().describe('A tax code ID.'),
  unit_label: emptyable(productFields.unit_label.unwrap())
    .optional()
    .describe(
      "A label that represents units of this product. When set, this will be included in customers' receipts, invoices, Checkout, and the customer portal.",
    ),
  url: emptyable(productFields.url.unwrap()).optional().describe('A URL of a publicly-accessible webpage for this product.'),
  expand: expandParam('product').optional().describe('Specifies which fields in the response should be expanded.'),
});
export const retrieveProductParams = z.strictObject({
  expand: expandParam('product').optional().describe('Specifies which fields in the response should be expanded.'),
});
export const deleteProductParams = z.strictObject({});
export const listProductsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('product')).optional().describe('Specifies which fields in the response should be expanded.'),
  created: createdParam().optional().describe('Only return objects created during the given interval: Unix seconds, or `gt` / `gte` / `lt` / `lte` bounds.'),
  active: booleanParam().optional().describe('Only return products that are active or inactive (e.g., pass `false` to list all inactive products).'),
});

export const recurringParam = () =>
  z.strictObject({
    interval: z.enum(['day', 'week', 'month', 'year']).describe('Specifies billing frequency. Either `day`, `week`, `month` or `year`.'),
    interval_count: integerParam(1, 365).optional().describe('The number of intervals between subscription billings.'),
    usage_type: z
      .literal('licensed', 'only licensed (per-seat) usage is supported')
      .optional()
      .describe('Configures how the quantity per period should be determined.'),
  });

/**
 * A price's `recurring`: a metered price (`usage_type=metered`) bills in arrears what its `meter` counted
 * for the customer over the period. `aggregate_usage` went with legacy usage-based billing (2025-03-31.basil,
 * before the SDK's version): refused as an unknown parameter.
 */
export const priceRecurringParam = () =>
  recurringParam().extend({
    usage_type: z.enum(['licensed', 'metered']).optional().describe('Configures how the quantity per period should be determined. Defaults to `licensed`.'),
    meter: idParam().optional().describe('The meter tracking the usage of a metered price.'),
  });

/** Minor units with up to 12 decimal places, as the reference's `unit_amount_decimal`. */
export const unitAmountDecimalParam = () => z.string().regex(/^\d{1,12}(\.\d{1,12})?$/, 'must be a decimal with at most 12 decimal places');

const taxBehaviorParam = () => z.enum(['exclusive', 'inclusive', 'unspecified']);

/** One tier of `tiers`: `up_to` an integer or `inf` (the last tier), a unit amount and/or a flat amount. */
const tierParam = z.strictObject({
  up_to: z
    .union([z.literal('inf'), integerParam(1, 999_999_999_999)])
    .describe(
      'Specifies the upper bound of this tier. The lower bound of a tier is the upper bound of the previous tier adding one. Use `inf` to define a fallback tier.',
    ),
  unit_amount: integerParam(0, 99_999_999).optional().describe('The per unit billing amount for each individual unit for which this tier applies.'),
  unit_amount_decimal: unitAmountDecimalParam()
    .optional()
    .describe(
      'Same as `unit_amount`, but accepts a decimal value in cents (or local equivalent) with at most 12 decimal places. Only one of `unit_amount` and `unit_amount_decimal` can be set.',
    ),
  flat_amount: integerParam(0, 99_999_999).optional().describe('The flat billing amount for an entire tier, regardless of the number of units in the tier.'),
  flat_amount_decimal: unitAmountDecimalParam()
    .optional()
    .describe(
      'Same as `flat_amount`, but accepts a decimal value representing an integer in the minor units of the currency. Only one of `flat_amount` and `flat_amount_decimal` can be set.',
    ),
});

export type TierParams = z.output<typeof tierParam>;

/** `tiers`: up to 100 tiers (each is copied into every subscription item and invoice line of the price: a bound on their size); checked in order by the service. */
const tiersParam = () => z.array(tierParam).min(1).max(100);

/** Customer-chosen amounts take part in the schema only to be refused with a clear message by the service. */
const currencyOptionParams = z.strictObject({
  unit_amount: integerParam(0, 99_999_999)
    .optional()
    .describe('A positive integer in cents (or local equivalent) (or 0 for a free price) representing how much to charge.'),
  unit_amount_decimal: unitAmountDecimalParam()
    .optional()
    .describe('Same as `unit_amount`, but accepts a decimal value in cents (or local equivalent) with at most 12 decimal places.'),
  tax_behavior: taxBehaviorParam().optional().describe('Whether the price is inclusive or exclusive of taxes (`inclusive`, `exclusive`, `unspecified`).'),
  custom_unit_amount: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('When set, provides configuration for the amount to be adjusted by the customer during Checkout Sessions and Payment Links.'),
  tiers: tiersParam().optional().describe('Each element represents a pricing tier. This parameter requires `billing_scheme` to be set to `tiered`.'),
});

/** `currency_options`: up to 50 more currencies, by ISO code (lowercased). */
const currencyOptionsParam = () =>
  z
    .record(z.string().regex(/^[A-Za-z]{3}$/, 'currency_options keys must be three-letter ISO currency codes'), currencyOptionParams)
    .refine((options) => Object.keys(options).length <= 50, 'currency_options can hold at most 50 currencies');

export type CurrencyOptionParams = z.output<typeof currencyOptionParams>;

export const createPriceParams = z.strictObject({
  currency: currencyParam().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
  product: idParam().optional().describe('The ID of the Product that this Price will belong to.'),
  product_data: z
    .strictObject({
      name: productFields.name.describe("The product's name, meant to be displayable to the customer."),
      active: booleanParam().optional().describe('Whether the product is currently available for purchase.'),
      metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
      statement_descriptor: productFields.statement_descriptor.describe(
        "An arbitrary string to be displayed on your customer's credit card or bank statement.",
      ),
      tax_code: productFields.tax_code.describe('A tax code ID.'),
      unit_label: productFields.unit_label.describe(
        "A label that represents units of this product. When set, this will be included in customers' receipts, invoices, Checkout, and the customer portal.",
      ),
    })
    .optional()
    .describe('These fields can be used to create a new product that this price will belong to.'),
  unit_amount: integerParam(0, 99_999_999)
    .optional()
    .describe('A positive integer in cents (or local equivalent) (or 0 for a free price) representing how much to charge.'),
  unit_amount_decimal: unitAmountDecimalParam()
    .optional()
    .describe('Same as `unit_amount`, but accepts a decimal value in cents (or local equivalent) with at most 12 decimal places.'),
  recurring: priceRecurringParam().optional().describe('The recurring components of a price such as `interval` and `usage_type`.'),
  billing_scheme: z
    .enum(['per_unit', 'tiered'])
    .optional()
    .describe(
      'Describes how to compute the price per period. Either `per_unit` or `tiered`. `per_unit` charges the fixed `unit_amount` per unit; `tiered` computes the amount from `tiers` in `tiers_mode`.',
    ),
  tiers: tiersParam().optional().describe('Each element represents a pricing tier. This parameter requires `billing_scheme` to be set to `tiered`.'),
  tiers_mode: z
    .enum(['graduated', 'volume'])
    .optional()
    .describe(
      'Defines if the tiering price should be `graduated` or `volume` based. In `volume`-based tiering, the maximum quantity within a period determines the per unit price, in `graduated` tiering pricing can successively change as the quantity grows.',
    ),
  transform_quantity: z
    .strictObject({
      divide_by: integerParam(1, 999_999_999_999).describe('Divide usage by this number.'),
      round: z.enum(['up', 'down']).describe('After division, either round the result `up` or `down`.'),
    })
    .optional()
    .describe('Apply a transformation to the reported usage or set quantity before computing the billed price. Cannot be combined with `tiers`.'),
  active: booleanParam().optional().describe('Whether the price can be used for new purchases. Defaults to `true`.'),
  lookup_key: z.string().min(1).max(200).optional().describe('A lookup key used to retrieve prices dynamically from a static string.'),
  transfer_lookup_key: booleanParam()
    .optional()
    .describe('If set to true, will atomically remove the lookup key from the existing price, and assign it to this price.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  nickname: z.string().max(250).optional().describe('A brief description of the price, hidden from customers.'),
  tax_behavior: taxBehaviorParam().optional().describe('Whether the price is inclusive or exclusive of taxes (`inclusive`, `exclusive`, `unspecified`).'),
  currency_options: currencyOptionsParam()
    .optional()
    .describe('Prices defined in each available currency option. Each key must be a three-letter ISO currency code and a supported currency.'),
  expand: expandParam('price').optional().describe('Specifies which fields in the response should be expanded.'),
});
export const updatePriceParams = z.strictObject({
  active: booleanParam().optional().describe('Whether the price can be used for new purchases. Defaults to `true`.'),
  currency_options: emptyable(currencyOptionsParam())
    .optional()
    .describe('Prices defined in each available currency option. Each key must be a three-letter ISO currency code and a supported currency.'),
  lookup_key: emptyable(z.string().max(200)).optional().describe('A lookup key used to retrieve prices dynamically from a static string.'),
  transfer_lookup_key: booleanParam()
    .optional()
    .describe('If set to true, will atomically remove the lookup key from the existing price, and assign it to this price.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  nickname: emptyable(z.string().max(250)).optional().describe('A brief description of the price, hidden from customers.'),
  tax_behavior: taxBehaviorParam().optional().describe('Whether the price is inclusive or exclusive of taxes (`inclusive`, `exclusive`, `unspecified`).'),
  expand: expandParam('price').optional().describe('Specifies which fields in the response should be expanded.'),
});
export const retrievePriceParams = z.strictObject({
  expand: expandParam('price').optional().describe('Specifies which fields in the response should be expanded.'),
});
export const listPricesParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('price')).optional().describe('Specifies which fields in the response should be expanded.'),
  active: booleanParam().optional().describe('Only return prices that are active or inactive (e.g., pass `false` to list all inactive prices).'),
  created: createdParam().optional().describe('Only return objects created during the given interval: Unix seconds, or `gt` / `gte` / `lt` / `lte` bounds.'),
  currency: currencyParam().optional().describe('Only return prices for the given currency.'),
  lookup_keys: z.array(z.string().max(200)).min(1).max(10).optional().describe('Only return the price with these lookup_keys, if any exist.'),
  product: idParam().optional().describe('Only return prices for the given product.'),
  type: z.enum(['one_time', 'recurring']).optional().describe('Only return prices of type `recurring` or `one_time`.'),
});

export type CreateProductParams = z.output<typeof createProductParams>;
export type UpdateProductParams = z.output<typeof updateProductParams>;
export type CreatePriceParams = z.output<typeof createPriceParams>;
export type UpdatePriceParams = z.output<typeof updatePriceParams>;
