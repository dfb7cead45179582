import { unixSeconds } from '#shared/http/timestamps.ts';
import type { Price, Product } from './catalogue.ts';

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
    marketing_features: [],
    metadata: product.metadata,
    name: product.name,
    package_dimensions: null,
    shippable: null,
    statement_descriptor: product.statementDescriptor,
    tax_code: product.taxCode,
    type: 'service' as const,
    unit_label: product.unitLabel,
    updated: unixSeconds(product.updated),
    url: product.url,
  };
}

export function serializePrice(price: Price) {
  return {
    id: price.id,
    object: 'price' as const,
    active: price.active,
    billing_scheme: 'per_unit' as const,
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
