import * as z from 'zod';
import { deletedObject, metadataObject, unixTime } from '#shared/wire/objects.ts';

const taxBehavior = z.enum(['exclusive', 'inclusive', 'unspecified']);

const interval = z.enum(['day', 'week', 'month', 'year']);

const usageType = z.enum(['licensed', 'metered']).describe('Configures how the quantity per period should be determined.');

export const productObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('product').describe("String representing the object's type. Objects of the same type share the same value."),
    active: z.boolean().describe('Whether the product is currently available for purchase.'),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    /** The default price's id, or the price when expanded. */
    get default_price() {
      return z
        .union([z.string(), priceObject])
        .nullable()
        .describe('The ID of the Price object that is the default price for this product, or the price when expanded.');
    },
    description: z.string().nullable().describe("The product's description, meant to be displayable to the customer."),
    images: z.array(z.string()).describe('A list of up to 8 URLs of images for this product, meant to be displayable to the customer.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    marketing_features: z
      .array(z.object({ name: z.string().describe("The product's name, meant to be displayable to the customer.") }))
      .optional()
      .describe('A list of up to 15 marketing features for this product. Named `features` before version 2024-04-10.'),
    features: z
      .array(z.object({ name: z.string().describe("The feature's name.") }))
      .optional()
      .describe('Before version 2024-04-10 only: the marketing features, under their older name.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    name: z.string().describe("The product's name, meant to be displayable to the customer."),
    package_dimensions: z
      .object({
        height: z.number().describe('Height, in inches.'),
        length: z.number().describe('Length, in inches.'),
        weight: z.number().describe('Weight, in ounces.'),
        width: z.number().describe('Width, in inches.'),
      })
      .nullable()
      .describe('The dimensions of this product for shipping purposes.'),
    shippable: z.boolean().nullable().describe('Whether this product is shipped (i.e., physical goods).'),
    statement_descriptor: z.string().nullable().describe("Extra information about a product which will appear on your customer's credit card statement."),
    tax_code: z.string().nullable().describe('A tax code ID.'),
    tax_details: z.null().describe('Tax details for this product, including the tax code and an optional performance location.'),
    type: z
      .literal('service')
      .describe(
        'The type of the product. The product is either of type `good`, which is eligible for use with Orders and SKUs, or `service`, which is eligible for use with Subscriptions and Plans.',
      ),
    unit_label: z
      .string()
      .nullable()
      .describe(
        "A label that represents units of this product. When set, this will be included in customers' receipts, invoices, Checkout, and the customer portal.",
      ),
    updated: unixTime.describe('Time at which the object was last updated. Measured in seconds since the Unix epoch.'),
    url: z.string().nullable().describe('A URL of a publicly-accessible webpage for this product.'),
  })
  .meta({ id: 'Product' });

export const deletedProductObject = deletedObject('product').meta({ id: 'DeletedProduct' });

/** A price's or plan's product: its id, or (expanded) the product, or the reference's deleted product for one gone. */
const productOrId = z.union([z.string(), productObject, deletedProductObject]);

const billingScheme = z
  .enum(['per_unit', 'tiered'])
  .describe(
    'Describes how to compute the price per period. Either `per_unit` or `tiered`. `per_unit` indicates that the fixed amount (specified in `unit_amount` or `unit_amount_decimal`) will be charged per unit in `quantity`; `tiered` indicates that the unit pricing will be computed using a tiering strategy as defined using the `tiers` and `tiers_mode` attributes.',
  );

const tiersMode = z
  .enum(['graduated', 'volume'])
  .nullable()
  .describe(
    'Defines if the tiering price should be `graduated` or `volume` based. In `volume`-based tiering, the maximum quantity within a period determines the per unit price. In `graduated` tiering, pricing can change as the quantity grows.',
  );

export const tierObject = z.object({
  flat_amount: z.int().nullable().describe('Price for the entire tier.'),
  flat_amount_decimal: z.string().nullable().describe('Same as `flat_amount`, but contains a decimal value with at most 12 decimal places.'),
  unit_amount: z.int().nullable().describe('Per unit price for units relevant to the tier.'),
  unit_amount_decimal: z.string().nullable().describe('Same as `unit_amount`, but contains a decimal value with at most 12 decimal places.'),
  up_to: z.int().nullable().describe('Up to and including to this quantity will be contained in the tier (null: every quantity above the tier before).'),
});

const tiersField = z
  .array(tierObject)
  .optional()
  .describe(
    'Each element represents a pricing tier. This parameter requires `billing_scheme` to be set to `tiered`. Only when expanded (`expand[]=tiers`), and only on tiered prices.',
  );

const transformObject = z.object({
  divide_by: z.int().describe('Divide usage by this number.'),
  round: z.enum(['up', 'down']).describe('After division, either round the result `up` or `down`.'),
});

export const currencyOptionObject = z.object({
  custom_unit_amount: z
    .null()
    .describe('When set, provides configuration for the amount to be adjusted by the customer during Checkout Sessions and Payment Links.'),
  tax_behavior: taxBehavior.describe('Whether the price is inclusive or exclusive of taxes (`inclusive`, `exclusive`, `unspecified`).'),
  tiers: z.array(tierObject).optional().describe('Each element represents a pricing tier: on the options of a tiered price, shown with `currency_options`.'),
  unit_amount: z
    .int()
    .nullable()
    .describe(
      'The unit amount in cents (or local equivalent) to be charged, represented as a whole integer if possible. Only set if `billing_scheme=per_unit`.',
    ),
  unit_amount_decimal: z
    .string()
    .nullable()
    .describe(
      'The unit amount in cents (or local equivalent) to be charged, represented as a decimal string with at most 12 decimal places. Only set if `billing_scheme=per_unit`.',
    ),
});

export const priceObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('price').describe("String representing the object's type. Objects of the same type share the same value."),
    active: z.boolean().describe('Whether the price can be used for new purchases.'),
    billing_scheme: billingScheme,
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    currency: z.string().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
    /** Only when expanded. */
    currency_options: z
      .record(z.string(), currencyOptionObject)
      .optional()
      .describe(
        'Prices defined in each available currency option. Each key must be a three-letter ISO currency code and a supported currency. Only when expanded.',
      ),
    custom_unit_amount: z
      .null()
      .describe('When set, provides configuration for the amount to be adjusted by the customer during Checkout Sessions and Payment Links.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    lookup_key: z.string().nullable().describe('A lookup key used to retrieve prices dynamically from a static string.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    nickname: z.string().nullable().describe('A brief description of the price, hidden from customers.'),
    /** The product's id, or the product when expanded. */
    get product() {
      return productOrId.describe("The ID of the product this price is associated with. The product's id, or the product when expanded.");
    },
    recurring: z
      .object({
        aggregate_usage: z.null().optional().describe('Before version 2025-03-31.basil only; always null: usage is aggregated by meters.'),
        interval,
        interval_count: z.int().describe('The number of intervals (specified in the `interval` attribute) between subscription billings.'),
        meter: z.string().nullable().describe('The meter tracking the usage of a metered price.'),
        trial_period_days: z.null().describe('Default number of trial days when subscribing a customer to this price using `trial_from_plan=true`.'),
        usage_type: usageType,
      })
      .nullable()
      .describe('The recurring components of a price such as `interval` and `usage_type`.'),
    tax_behavior: taxBehavior.describe('Whether the price is inclusive or exclusive of taxes (`inclusive`, `exclusive`, `unspecified`).'),
    tiers: tiersField,
    tiers_mode: tiersMode,
    transform_quantity: transformObject
      .nullable()
      .describe('Apply a transformation to the reported usage or set quantity before computing the amount billed. Cannot be combined with `tiers`.'),
    type: z
      .enum(['one_time', 'recurring'])
      .describe('One of `one_time` or `recurring` depending on whether the price is for a one-time purchase or a recurring (subscription) purchase.'),
    unit_amount: z
      .int()
      .nullable()
      .describe(
        'The unit amount in cents (or local equivalent) to be charged, represented as a whole integer if possible. Only set if `billing_scheme=per_unit`.',
      ),
    unit_amount_decimal: z
      .string()
      .nullable()
      .describe(
        'The unit amount in cents (or local equivalent) to be charged, represented as a decimal string with at most 12 decimal places. Only set if `billing_scheme=per_unit`.',
      ),
  })
  .meta({ id: 'Price' });

export const planObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('plan').describe("String representing the object's type. Objects of the same type share the same value."),
    active: z.boolean().describe('Whether the product is currently available for purchase.'),
    aggregate_usage: z.null().optional().describe('Before version 2025-03-31.basil only; always null: usage is aggregated by meters.'),
    amount: z.int().nullable().describe('The unit amount in cents (or local equivalent) to be charged, represented as a whole integer if possible.'),
    amount_decimal: z
      .string()
      .nullable()
      .describe(
        'The unit amount in cents (or local equivalent) to be charged, represented as a decimal string with at most 12 decimal places. Only set if `billing_scheme=per_unit`.',
      ),
    billing_scheme: billingScheme,
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    currency: z.string().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
    interval: interval.nullable().describe('The frequency at which a subscription is billed. One of `day`, `week`, `month` or `year`.'),
    interval_count: z.int().nullable().describe('The number of intervals (specified in the `interval` attribute) between subscription billings.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    meter: z.string().nullable().describe('The meter tracking the usage of a metered price.'),
    nickname: z.string().nullable().describe('A brief description of the price, hidden from customers.'),
    /** The product's id, or the product when expanded. */
    product: productOrId.describe('The ID of the product this plan is associated with, or the product when expanded.'),
    tiers: tiersField,
    tiers_mode: tiersMode,
    transform_usage: transformObject
      .nullable()
      .describe('Apply a transformation to the reported usage or set quantity before computing the amount billed. Cannot be combined with `tiers`.'),
    trial_period_days: z.null().describe('Default number of trial days when subscribing a customer to this price using `trial_from_plan=true`.'),
    usage_type: usageType,
  })
  .meta({ id: 'Plan' });
