import { minimumChargeAmounts } from '#shared/billing/minimum-charge.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import type { InvoicePlan } from './lifecycle.ts';
import { nextPeriodEnd } from './periods.ts';
import type { Subscription } from './subscription.ts';

/**
 * Billing thresholds as the reference has them: a subscription's `billing_thresholds[amount_gte]` and its
 * metered items' `billing_thresholds[usage_gte]` invoice the usage so far early (`subscription_threshold`)
 * once this period's running usage amount, or one item's usage, reaches them; with
 * `reset_billing_cycle_anchor` the threshold's time becomes the anchor and a new period starts. Pure
 * decisions here; the service writes the invoice in the subscription's versioned transaction.
 */

/** One metered item's running usage this period (since the last invoice that billed it), as the preview counts it. */
export interface RunningUsage {
  subscriptionItem: string;
  quantity: number;
  amount: number;
}

/** What reached a threshold: the running amount (`amount_gte`), or an item's usage (`usage_gte`). */
export type ThresholdReached = { kind: 'amount'; amount: number } | { kind: 'usage'; item: string; quantity: number };

export const hasThresholds = (subscription: Pick<Subscription, 'billingThresholds' | 'items'>): boolean =>
  (subscription.billingThresholds?.amountGte ?? null) !== null || subscription.items.some((item) => item.billingThresholds);

/**
 * Whether thresholds are evaluated for the subscription at `at`: it has one, it is `active` or `past_due`
 * (no usage is billed in a trial, and a paused, incomplete or ended one invoices nothing), and `at` falls
 * inside its current period (at its end the renewal bills the usage), past what a threshold invoiced.
 */
export function thresholdsApply(subscription: Subscription, at: number): boolean {
  if (!hasThresholds(subscription) || subscription.endedAt !== null) return false;
  if (subscription.status !== 'active' && subscription.status !== 'past_due') return false;
  if (subscription.pauseCollection !== null) return false;
  return at > subscription.currentPeriodStart && at < subscription.currentPeriodEnd && at > (subscription.usageBilledUntil ?? 0);
}

/** The threshold the running usage reached, the amount first, or null while below every one. */
export function thresholdReached(subscription: Pick<Subscription, 'billingThresholds' | 'items'>, usage: readonly RunningUsage[]): ThresholdReached | null {
  const amountGte = subscription.billingThresholds?.amountGte ?? null;
  const amount = usage.reduce((total, line) => total + line.amount, 0);
  if (amountGte !== null && amount >= amountGte && amount > 0) return { kind: 'amount', amount };
  for (const item of subscription.items) {
    const usageGte = item.billingThresholds?.usageGte;
    if (usageGte === undefined) continue;
    const quantity = usage.find((line) => line.subscriptionItem === item.id)?.quantity ?? 0;
    if (quantity >= usageGte) return { kind: 'usage', item: item.id, quantity };
  }
  return null;
}

/** Minute-aligned, as the usage reader counts: the threshold invoice and the next one meet at a minute boundary. */
export const thresholdTime = (now: number): number => Math.floor(now / 60_000) * 60_000;

/**
 * The threshold invoice at `at`: each metered item's usage up to `at` (periodLines bills it in arrears from
 * where the last invoice stopped); with `reset_billing_cycle_anchor`, every item starts a new period at
 * `at`, so licensed items are billed for it too, and the subscription's next renewal follows the new anchor.
 */
export function thresholdStep(subscription: Subscription, at: number): { plan: InvoicePlan; next: Subscription } {
  const reset = subscription.billingThresholds?.resetBillingCycleAnchor === true;
  if (!reset) {
    const metered = subscription.items.filter((item) => item.price.recurring?.usageType === 'metered');
    return {
      plan: {
        billingReason: 'subscription_threshold',
        items: metered.map((item) => ({ id: item.id, period: { start: at, end: at } })),
        collection: 'finalize',
      },
      next: { ...subscription, usageBilledUntil: at },
    };
  }
  const items = subscription.items.map((item) => ({ id: item.id, period: { start: at, end: nextPeriodEnd(at, item.price.recurring!, at) } }));
  return {
    plan: { billingReason: 'subscription_threshold', items, collection: 'finalize' },
    next: {
      ...subscription,
      usageBilledUntil: at,
      billingCycleAnchor: at,
      currentPeriodStart: at,
      currentPeriodEnd: Math.min(...items.map((item) => item.period.end)),
    },
  };
}

const invalid = (message: string, param: string) => new InvalidRequestError(message, 'parameter_invalid', param);

/** `billing_thresholds[amount_gte]` is at least the currency's minimum charge (an amount that is charged at all). */
export function checkAmountThreshold(thresholds: Subscription['billingThresholds'], currency: string): void {
  const amountGte = thresholds?.amountGte ?? null;
  const minimum = minimumChargeAmounts[currency] ?? 1;
  if (amountGte !== null && amountGte < minimum) {
    throw invalid(
      `billing_thresholds[amount_gte] must be at least ${minimum} (the minimum charge amount for ${currency.toUpperCase()}).`,
      'billing_thresholds[amount_gte]',
    );
  }
}

/** Item thresholds (`usage_gte`) only on metered prices; `paramOf` names an item's `billing_thresholds` in the error. */
export function checkItemThresholds(items: Subscription['items'], paramOf: (index: number) => string): void {
  for (const [index, item] of items.entries()) {
    if (item.billingThresholds && item.price.recurring?.usageType !== 'metered') {
      throw invalid(
        `Usage thresholds (billing_thresholds[usage_gte]) can only be set on items whose price is metered (recurring[usage_type]=metered); the price ${item.price.id} is licensed.`,
        paramOf(index),
      );
    }
  }
}

/** `billing_thresholds` as given (`''` is null: removed) in the stored shape; undefined when not given. */
export function thresholdsParam(
  given: { amount_gte?: number; reset_billing_cycle_anchor?: boolean } | null | undefined,
): Subscription['billingThresholds'] | undefined {
  if (given === undefined) return undefined;
  if (given === null) return null;
  return { amountGte: given.amount_gte ?? null, resetBillingCycleAnchor: given.reset_billing_cycle_anchor ?? false };
}

/** An item's `billing_thresholds` as given, in the stored shape; undefined when not given. */
export const itemThresholdsParam = (given: { usage_gte: number } | null | undefined): { usageGte: number } | null | undefined =>
  given === undefined ? undefined : given === null ? null : { usageGte: given.usage_gte };
