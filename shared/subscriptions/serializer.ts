import * as z from 'zod';
import { systemClock } from '#shared/clock.ts';
import { planObject, priceObject, serializePlan, serializePrice } from '#shared/catalogue/serializer.ts';
import type { Recurring } from '#shared/catalogue/catalogue.ts';
import { customerOrIdObject } from '#shared/customers/serializer.ts';
import { metadataObject, unixTime } from '#shared/http/objects.ts';
import { unixSeconds } from '#shared/http/timestamps.ts';
import type { BillingModeRendering } from './rendering.ts';
import type { Subscription, SubscriptionItem } from './subscription.ts';

/** Adds `count` billing intervals to a UTC time; months and years keep the anchor's day, clamped to the month's end. */
export function addIntervals(start: number, recurring: Recurring, count: number): number {
  const steps = recurring.intervalCount * count;
  if (recurring.interval === 'day') return start + steps * 86_400_000;
  if (recurring.interval === 'week') return start + steps * 7 * 86_400_000;
  const date = new Date(start);
  const months = recurring.interval === 'month' ? steps : steps * 12;
  const target = new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return target.getTime();
}

/** The billing period of an item that contains `now`, counted from the subscription's anchor. */
export function currentPeriod(anchor: number, recurring: Recurring, now: number): { start: number; end: number } {
  let index = 0;
  let start = anchor;
  let end = addIntervals(anchor, recurring, 1);
  while (end <= now) {
    index++;
    start = end;
    end = addIntervals(anchor, recurring, index + 1);
  }
  return { start, end };
}

const subscriptionItemObject = z
  .object({
    id: z.string(),
    object: z.literal('subscription_item'),
    billing_thresholds: z.null(),
    created: unixTime,
    current_period_end: unixTime,
    current_period_start: unixTime,
    discounts: z.array(z.string()),
    metadata: metadataObject,
    plan: planObject,
    price: priceObject,
    quantity: z.int(),
    subscription: z.string(),
    tax_rates: z.array(z.unknown()),
  })
  .meta({ id: 'SubscriptionItem' });

const flexibleObject = z.object({ proration_discounts: z.enum(['included', 'itemized']) });
const billingModeType = z.enum(['classic', 'flexible']);

export const subscriptionObject = z
  .object({
    id: z.string(),
    object: z.literal('subscription'),
    application: z.null(),
    application_fee_percent: z.null(),
    automatic_tax: z.object({ disabled_reason: z.null(), enabled: z.boolean(), liability: z.null() }),
    billing_cycle_anchor: unixTime,
    billing_cycle_anchor_config: z.null(),
    /** A string before version 2025-08-27 (with `billing_mode_details`), an object from then on. */
    billing_mode: z.union([billingModeType, z.object({ type: billingModeType, flexible: flexibleObject.nullable(), updated_at: unixTime.optional() })]),
    billing_mode_details: z.object({ updated_at: unixTime, flexible: flexibleObject.optional() }).nullable().optional(),
    billing_thresholds: z.null(),
    cancel_at: z.null(),
    cancel_at_period_end: z.boolean(),
    canceled_at: unixTime.nullable(),
    cancellation_details: z.object({ comment: z.string().nullable(), feedback: z.string().nullable(), reason: z.string().nullable() }),
    collection_method: z.enum(['charge_automatically', 'send_invoice']),
    created: unixTime,
    currency: z.string(),
    /** The customer's id, or the customer when expanded (the reference's deleted customer for one deleted). */
    get customer() {
      return customerOrIdObject();
    },
    days_until_due: z.int().nullable(),
    default_payment_method: z.null(),
    default_source: z.null(),
    default_tax_rates: z.array(z.unknown()),
    description: z.string().nullable(),
    discounts: z.array(z.string()),
    ended_at: unixTime.nullable(),
    invoice_settings: z.object({ account_tax_ids: z.null(), issuer: z.object({ type: z.literal('self') }) }),
    items: z.object({
      object: z.literal('list'),
      data: z.array(subscriptionItemObject),
      has_more: z.boolean(),
      total_count: z.int(),
      url: z.string(),
    }),
    latest_invoice: z.null(),
    livemode: z.boolean(),
    metadata: metadataObject,
    next_pending_invoice_item_invoice: z.null(),
    on_behalf_of: z.null(),
    pause_collection: z.null(),
    payment_settings: z.null(),
    pending_invoice_item_interval: z.null(),
    pending_setup_intent: z.null(),
    pending_update: z.null(),
    schedule: z.null(),
    start_date: unixTime,
    status: z.enum(['active', 'canceled']),
    test_clock: z.null(),
    transfer_data: z.null(),
    trial_end: z.null(),
    trial_settings: z.object({ end_behavior: z.object({ missing_payment_method: z.literal('create_invoice') }) }),
    trial_start: z.null(),
  })
  .meta({ id: 'Subscription' });

type SubscriptionObject = z.input<typeof subscriptionObject>;

function serializeItem(subscription: Subscription, item: SubscriptionItem, now: number): z.input<typeof subscriptionItemObject> {
  const period = currentPeriod(subscription.billingCycleAnchor, item.price.recurring!, Math.min(now, subscription.endedAt ?? now));
  return {
    id: item.id,
    object: 'subscription_item',
    billing_thresholds: null,
    created: unixSeconds(item.created),
    current_period_end: unixSeconds(period.end),
    current_period_start: unixSeconds(period.start),
    discounts: [],
    metadata: item.metadata,
    plan: serializePlan(item.price),
    price: serializePrice(item.price),
    quantity: item.quantity,
    subscription: subscription.id,
    tax_rates: [],
  };
}

function billingMode(subscription: Subscription, rendering: BillingModeRendering): Pick<SubscriptionObject, 'billing_mode' | 'billing_mode_details'> {
  const mode = subscription.billingMode;
  const flexible = mode.type === 'flexible' ? { proration_discounts: mode.prorationDiscounts ?? 'included' } : null;
  const updatedAt = mode.updatedAt === null ? null : unixSeconds(mode.updatedAt);
  if (rendering === 'object') return { billing_mode: { type: mode.type, flexible, ...(updatedAt === null ? {} : { updated_at: updatedAt }) } };
  return { billing_mode: mode.type, billing_mode_details: updatedAt === null ? null : { updated_at: updatedAt, ...(flexible ? { flexible } : {}) } };
}

/** The v1 subscription with every top-level field, null where this service has no value. */
export function serializeSubscription(subscription: Subscription, rendering: BillingModeRendering, now = systemClock()): SubscriptionObject {
  return {
    id: subscription.id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: unixSeconds(subscription.billingCycleAnchor),
    billing_cycle_anchor_config: null,
    ...billingMode(subscription, rendering),
    billing_thresholds: null,
    cancel_at: null,
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
      data: subscription.items.map((item) => serializeItem(subscription, item, now)),
      has_more: false,
      total_count: subscription.items.length,
      url: `/v1/subscription_items?subscription=${subscription.id}`,
    },
    latest_invoice: null,
    livemode: subscription.scope.livemode,
    metadata: subscription.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: null,
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: unixSeconds(subscription.created),
    status: subscription.status,
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    trial_start: null,
  };
}
