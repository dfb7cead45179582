import type * as z from 'zod';
import { serializePlan, serializePrice } from '#shared/catalogue/serializer.ts';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import { currentPeriod } from './periods.ts';
import type { Subscription, SubscriptionItem } from './subscription.ts';
import type { subscriptionItemObject, subscriptionObject, deletedSubscriptionItemObject } from './objects.ts';

type SubscriptionObject = z.input<typeof subscriptionObject>;

export const serializeDeletedSubscriptionItem = (id: string): z.input<typeof deletedSubscriptionItemObject> => ({
  id,
  object: 'subscription_item',
  deleted: true,
});

/**
 * An item's current period: the trial while trialing, else the anchor's period of its interval that holds
 * the subscription's current period end (items of longer intervals keep theirs in the flexible mode).
 */
function itemPeriod(subscription: Subscription, item: SubscriptionItem): { start: number; end: number } {
  if (subscription.trialEnd !== null && subscription.currentPeriodEnd === subscription.trialEnd && subscription.trialStart !== null) {
    return { start: subscription.trialStart, end: subscription.trialEnd };
  }
  return currentPeriod(subscription.billingCycleAnchor, item.price.recurring!, Math.max(subscription.currentPeriodEnd - 1, subscription.billingCycleAnchor));
}

/** A subscription item as `/v1/subscription_items` and the subscription's `items` show it, with its current period. */
export function serializeItem(subscription: Subscription, item: SubscriptionItem): z.input<typeof subscriptionItemObject> {
  const period = itemPeriod(subscription, item);
  return {
    id: item.id,
    object: 'subscription_item',
    billing_thresholds: item.billingThresholds ? { usage_gte: item.billingThresholds.usageGte } : null,
    created: unixSeconds(item.created),
    current_period_end: unixSeconds(period.end),
    current_period_start: unixSeconds(period.start),
    discounts: [],
    metadata: item.metadata,
    plan: serializePlan(item.price),
    price: serializePrice(item.price),
    ...(item.price.recurring?.usageType === 'metered' ? {} : { quantity: item.quantity }),
    subscription: subscription.id,
    tax_rates: [],
  };
}

function billingMode(subscription: Subscription): SubscriptionObject['billing_mode'] {
  const mode = subscription.billingMode;
  const flexible = mode.type === 'flexible' ? { proration_discounts: mode.prorationDiscounts ?? 'included' } : null;
  return { type: mode.type, flexible, ...(mode.updatedAt === null ? {} : { updated_at: unixSeconds(mode.updatedAt) }) };
}

/**
 * The v1 subscription with every top-level field, null where this service has no value, in the newest
 * version's shape (older versions are rendered from it: `shared/versions/changes.ts`).
 */
export function serializeSubscription(subscription: Subscription): SubscriptionObject {
  return {
    id: subscription.id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: unixSeconds(subscription.billingCycleAnchor),
    billing_cycle_anchor_config: null,
    billing_mode: billingMode(subscription),
    billing_thresholds: subscription.billingThresholds
      ? { amount_gte: subscription.billingThresholds.amountGte, reset_billing_cycle_anchor: subscription.billingThresholds.resetBillingCycleAnchor }
      : null,
    cancel_at: subscription.cancelAt === null ? null : unixSeconds(subscription.cancelAt),
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    canceled_at: subscription.canceledAt === null ? null : unixSeconds(subscription.canceledAt),
    cancellation_details: subscription.cancellationDetails,
    collection_method: subscription.collectionMethod,
    created: unixSeconds(subscription.created),
    currency: subscription.currency,
    customer: subscription.customer,
    days_until_due: subscription.daysUntilDue,
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: subscription.description,
    discounts: [],
    ended_at: subscription.endedAt === null ? null : unixSeconds(subscription.endedAt),
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: {
      object: 'list',
      data: subscription.items.map((item) => serializeItem(subscription, item)),
      has_more: false,
      total_count: subscription.items.length,
      url: `/v1/subscription_items?subscription=${subscription.id}`,
    },
    latest_invoice: subscription.latestInvoice,
    livemode: subscription.scope.livemode,
    metadata: subscription.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection:
      subscription.pauseCollection === null
        ? null
        : {
            behavior: subscription.pauseCollection.behavior,
            resumes_at: subscription.pauseCollection.resumesAt === null ? null : unixSeconds(subscription.pauseCollection.resumesAt),
          },
    payment_settings: null,
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: unixSeconds(subscription.created),
    status: subscription.status,
    test_clock: subscription.testClock,
    transfer_data: null,
    trial_end: subscription.trialEnd === null ? null : unixSeconds(subscription.trialEnd),
    trial_settings: { end_behavior: { missing_payment_method: subscription.trialEndBehavior } },
    trial_start: subscription.trialStart === null ? null : unixSeconds(subscription.trialStart),
  };
}
