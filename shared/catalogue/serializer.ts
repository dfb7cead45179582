import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import { withFieldsWhenExpanded } from '#shared/expansion/resolver.ts';
import { completePrice, type CurrencyOption, type Price, type Product, type Tier } from './catalogue.ts';
import type { productObject, deletedProductObject, tierObject, currencyOptionObject, priceObject, planObject } from './objects.ts';

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

const serializeTiers = (tiers: readonly Tier[]): z.input<typeof tierObject>[] =>
  tiers.map((tier) => ({
    flat_amount: tier.flatAmount,
    flat_amount_decimal: tier.flatAmountDecimal,
    unit_amount: tier.unitAmount,
    unit_amount_decimal: tier.unitAmountDecimal,
    up_to: tier.upTo,
  }));

/** An option (or the price's own currency); a tiered price's options carry their tiers (shown whenever `currency_options` is). */
const currencyOption = (option: Pick<CurrencyOption, 'taxBehavior' | 'unitAmount' | 'unitAmountDecimal' | 'tiers'>): z.input<typeof currencyOptionObject> => ({
  custom_unit_amount: null,
  tax_behavior: option.taxBehavior,
  ...(option.tiers && { tiers: serializeTiers(option.tiers) }),
  unit_amount: option.unitAmount,
  unit_amount_decimal: option.unitAmountDecimal,
});

const transformOf = (price: Price) => price.transformQuantity && { divide_by: price.transformQuantity.divideBy, round: price.transformQuantity.round };

/** `tiers`, shown only when expanded (on tiered prices): with `show` (events, which cannot expand), else kept aside for the expander. */
const includedFields = <T extends object>(rendered: T, fields: Record<string, unknown>, show: boolean): T =>
  show ? Object.assign(rendered, fields) : withFieldsWhenExpanded(rendered, fields);

/**
 * The v1 price object. `currency_options` (the price's own currency first, then by code) and `tiers` are
 * shown only when expanded, as the reference does: with `show.currencyOptions` (events, which cannot
 * expand), else kept aside for the expander (`withFieldsWhenExpanded`).
 */
export function serializePrice(stored: Price, show: { currencyOptions?: boolean } = {}): z.input<typeof priceObject> {
  const price = completePrice(stored);
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
    billing_scheme: price.billingScheme,
    created: unixSeconds(price.created),
    currency: price.currency,
    custom_unit_amount: null,
    livemode: price.scope.livemode,
    lookup_key: price.lookupKey,
    metadata: price.metadata,
    nickname: price.nickname,
    product: price.product,
    recurring: price.recurring
      ? {
          interval: price.recurring.interval,
          interval_count: price.recurring.intervalCount,
          meter: price.recurring.meter,
          trial_period_days: null,
          usage_type: price.recurring.usageType,
        }
      : null,
    tax_behavior: price.taxBehavior,
    tiers_mode: price.tiersMode,
    transform_quantity: transformOf(price),
    type: price.type,
    unit_amount: price.unitAmount,
    unit_amount_decimal: price.unitAmountDecimal,
  };
  return includedFields(
    rendered,
    { currency_options: currencyOptions, ...(price.tiers && { tiers: serializeTiers(price.tiers) }) },
    show.currencyOptions === true,
  );
}

/** The legacy `plan` a subscription item shows beside its recurring price. */
export function serializePlan(stored: Price): z.input<typeof planObject> {
  const price = completePrice(stored);
  const rendered: z.input<typeof planObject> = {
    id: price.id,
    object: 'plan',
    active: price.active,
    amount: price.unitAmount,
    amount_decimal: price.unitAmountDecimal,
    billing_scheme: price.billingScheme,
    created: unixSeconds(price.created),
    currency: price.currency,
    interval: price.recurring?.interval ?? null,
    interval_count: price.recurring?.intervalCount ?? null,
    livemode: price.scope.livemode,
    metadata: price.metadata,
    meter: price.recurring?.meter ?? null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: price.tiersMode,
    transform_usage: transformOf(price),
    trial_period_days: null,
    usage_type: price.recurring?.usageType ?? 'licensed',
  };
  return price.tiers ? withFieldsWhenExpanded(rendered, { tiers: serializeTiers(price.tiers) }) : rendered;
}
