import * as z from 'zod';
import { deletedObject, metadataObject, unixTime } from '#shared/http/objects.ts';
import { unixSeconds } from '#shared/http/timestamps.ts';
import { withFieldsWhenExpanded } from '#shared/expansion/resolver.ts';
import type { CurrencyOption, Price, Product } from './catalogue.ts';

const taxBehavior = z.enum(['exclusive', 'inclusive', 'unspecified']);
const interval = z.enum(['day', 'week', 'month', 'year']);

export const productObject = z
  .object({
    id: z.string(),
    object: z.literal('product'),
    active: z.boolean(),
    created: unixTime,
    /** The default price's id, or the price when expanded. */
    get default_price() {
      return z.union([z.string(), priceObject]).nullable();
    },
    description: z.string().nullable(),
    images: z.array(z.string()),
    livemode: z.boolean(),
    marketing_features: z.array(z.object({ name: z.string() })),
    metadata: metadataObject,
    name: z.string(),
    package_dimensions: z.object({ height: z.number(), length: z.number(), weight: z.number(), width: z.number() }).nullable(),
    shippable: z.boolean().nullable(),
    statement_descriptor: z.string().nullable(),
    tax_code: z.string().nullable(),
    tax_details: z.null(),
    type: z.literal('service'),
    unit_label: z.string().nullable(),
    updated: unixTime,
    url: z.string().nullable(),
  })
  .meta({ id: 'Product' });

export const deletedProductObject = deletedObject('product').meta({ id: 'DeletedProduct' });

/** A price's or plan's product: its id, or (expanded) the product, or the reference's deleted product for one gone. */
const productOrId = z.union([z.string(), productObject, deletedProductObject]);

const currencyOptionObject = z.object({
  custom_unit_amount: z.null(),
  tax_behavior: taxBehavior,
  unit_amount: z.int().nullable(),
  unit_amount_decimal: z.string(),
});

export const priceObject = z
  .object({
    id: z.string(),
    object: z.literal('price'),
    active: z.boolean(),
    billing_scheme: z.literal('per_unit'),
    created: unixTime,
    currency: z.string(),
    /** Only when expanded. */
    currency_options: z.record(z.string(), currencyOptionObject).optional(),
    custom_unit_amount: z.null(),
    livemode: z.boolean(),
    lookup_key: z.string().nullable(),
    metadata: metadataObject,
    nickname: z.string().nullable(),
    /** The product's id, or the product when expanded. */
    get product() {
      return productOrId;
    },
    recurring: z
      .object({
        aggregate_usage: z.null(),
        interval,
        interval_count: z.int(),
        meter: z.null(),
        trial_period_days: z.null(),
        usage_type: z.literal('licensed'),
      })
      .nullable(),
    tax_behavior: taxBehavior,
    tiers_mode: z.null(),
    transform_quantity: z.null(),
    type: z.enum(['one_time', 'recurring']),
    unit_amount: z.int().nullable(),
    unit_amount_decimal: z.string(),
  })
  .meta({ id: 'Price' });

export const planObject = z
  .object({
    id: z.string(),
    object: z.literal('plan'),
    active: z.boolean(),
    aggregate_usage: z.null(),
    amount: z.int().nullable(),
    amount_decimal: z.string(),
    billing_scheme: z.literal('per_unit'),
    created: unixTime,
    currency: z.string(),
    interval: interval.nullable(),
    interval_count: z.int().nullable(),
    livemode: z.boolean(),
    metadata: metadataObject,
    meter: z.null(),
    nickname: z.string().nullable(),
    /** The product's id, or the product when expanded. */
    product: productOrId,
    tiers_mode: z.null(),
    transform_usage: z.null(),
    trial_period_days: z.null(),
    usage_type: z.literal('licensed'),
  })
  .meta({ id: 'Plan' });

export function serializeProduct(product: Product): z.input<typeof productObject> {
  return {
    id: product.id,
    object: 'product',
    active: product.active,
    created: unixSeconds(product.created),
    default_price: product.defaultPrice,
    description: product.description,
    images: product.images,
    livemode: product.scope.livemode,
    marketing_features: product.marketingFeatures,
    metadata: product.metadata,
    name: product.name,
    package_dimensions: product.packageDimensions,
    shippable: product.shippable,
    statement_descriptor: product.statementDescriptor,
    tax_code: product.taxCode,
    tax_details: null,
    type: 'service',
    unit_label: product.unitLabel,
    updated: unixSeconds(product.updated),
    url: product.url,
  };
}

export const serializeDeletedProduct = (id: string): z.input<typeof deletedProductObject> => ({ id, object: 'product', deleted: true });

const currencyOption = (option: CurrencyOption): z.input<typeof currencyOptionObject> => ({
  custom_unit_amount: null,
  tax_behavior: option.taxBehavior,
  unit_amount: option.unitAmount,
  unit_amount_decimal: option.unitAmountDecimal,
});

/**
 * The v1 price object. `currency_options` (the price's own currency first, then by code) is shown only
 * when expanded, as the reference does: with `show.currencyOptions` (events, which cannot expand), else
 * kept aside for the expander (`withFieldsWhenExpanded`).
 */
export function serializePrice(price: Price, show: { currencyOptions?: boolean } = {}): z.input<typeof priceObject> {
  const currencyOptions = Object.fromEntries([
    [price.currency, currencyOption(price)],
    ...Object.entries(price.currencyOptions)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([code, option]) => [code, currencyOption(option)]),
  ]);
  const rendered: z.input<typeof priceObject> = {
    id: price.id,
    object: 'price',
    active: price.active,
    billing_scheme: 'per_unit',
    created: unixSeconds(price.created),
    currency: price.currency,
    ...(show.currencyOptions && { currency_options: currencyOptions }),
    custom_unit_amount: null,
    livemode: price.scope.livemode,
    lookup_key: price.lookupKey,
    metadata: price.metadata,
    nickname: price.nickname,
    product: price.product,
    recurring: price.recurring
      ? {
          aggregate_usage: null,
          interval: price.recurring.interval,
          interval_count: price.recurring.intervalCount,
          meter: null,
          trial_period_days: null,
          usage_type: 'licensed',
        }
      : null,
    tax_behavior: price.taxBehavior,
    tiers_mode: null,
    transform_quantity: null,
    type: price.type,
    unit_amount: price.unitAmount,
    unit_amount_decimal: price.unitAmountDecimal,
  };
  return show.currencyOptions ? rendered : withFieldsWhenExpanded(rendered, { currency_options: currencyOptions });
}

/** The legacy `plan` a subscription item shows beside its recurring price. */
export function serializePlan(price: Price): z.input<typeof planObject> {
  return {
    id: price.id,
    object: 'plan',
    active: price.active,
    aggregate_usage: null,
    amount: price.unitAmount,
    amount_decimal: price.unitAmountDecimal,
    billing_scheme: 'per_unit',
    created: unixSeconds(price.created),
    currency: price.currency,
    interval: price.recurring?.interval ?? null,
    interval_count: price.recurring?.intervalCount ?? null,
    livemode: price.scope.livemode,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  };
}
