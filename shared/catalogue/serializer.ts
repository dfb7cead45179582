import { unixSeconds } from '#shared/http/timestamps.ts';
import type { CurrencyOption, Price, Product } from './catalogue.ts';

export function serializeProduct(product: Product) {
  return {
    id: product.id,
    object: 'product' as const,
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
    type: 'service' as const,
    unit_label: product.unitLabel,
    updated: unixSeconds(product.updated),
    url: product.url,
  };
}

export const serializeDeletedProduct = (id: string) => ({ id, object: 'product' as const, deleted: true as const });

/** What a price response carries beyond its own fields when expanded. */
export interface PriceExpansions {
  /** The product object in place of its id. */
  product?: ReturnType<typeof serializeProduct>;
  /** Whether to show `currency_options`, which the reference only shows when expanded. */
  currencyOptions?: boolean;
}

const currencyOption = (option: CurrencyOption) => ({
  custom_unit_amount: null,
  tax_behavior: option.taxBehavior,
  unit_amount: option.unitAmount,
  unit_amount_decimal: option.unitAmountDecimal,
});

/** The v1 price object; `currency_options` (the price's own currency first, then by code) only when expanded. */
export function serializePrice(price: Price, expanded: PriceExpansions = {}) {
  return {
    id: price.id,
    object: 'price' as const,
    active: price.active,
    billing_scheme: 'per_unit' as const,
    created: unixSeconds(price.created),
    currency: price.currency,
    ...(expanded.currencyOptions && {
      currency_options: Object.fromEntries([
        [price.currency, currencyOption(price)],
        ...Object.entries(price.currencyOptions)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([code, option]) => [code, currencyOption(option)]),
      ]),
    }),
    custom_unit_amount: null,
    livemode: price.scope.livemode,
    lookup_key: price.lookupKey,
    metadata: price.metadata,
    nickname: price.nickname,
    product: expanded.product ?? price.product,
    recurring: price.recurring
      ? {
          aggregate_usage: null,
          interval: price.recurring.interval,
          interval_count: price.recurring.intervalCount,
          meter: null,
          trial_period_days: null,
          usage_type: 'licensed' as const,
        }
      : null,
    tax_behavior: price.taxBehavior,
    tiers_mode: null,
    transform_quantity: null,
    type: price.type,
    unit_amount: price.unitAmount,
    unit_amount_decimal: price.unitAmountDecimal,
  };
}

/** The legacy `plan` a subscription item shows beside its recurring price. */
export function serializePlan(price: Price) {
  return {
    id: price.id,
    object: 'plan' as const,
    active: price.active,
    aggregate_usage: null,
    amount: price.unitAmount,
    amount_decimal: price.unitAmountDecimal,
    billing_scheme: 'per_unit' as const,
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
    usage_type: 'licensed' as const,
  };
}
