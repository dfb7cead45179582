import { describe, expect, it } from 'vitest';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Scope } from '#shared/platform/types.ts';
import { createSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { subscriptionService } from '#shared/subscriptions/service.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';
import {
  checkAmountThreshold,
  checkItemThresholds,
  thresholdReached,
  thresholdStep,
  thresholdsApply,
  thresholdTime,
} from '#shared/subscriptions/thresholds.ts';
import { fixedBillingTime, memorySubscriptionInvoicing } from '../../support/billing-fakes.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../../support/fakes.ts';
import { recordingProrationInvoicing } from '../../support/proration-fakes.ts';
import { memorySubscriptionRepository } from '../../support/subscription-fakes.ts';

const scope: Scope = { accountId: 'acct_thresholds', livemode: false };
const start = Date.parse('2026-01-15T12:00:00Z');
const minute = 60_000;

const priceOf = (id: string, usageType: 'licensed' | 'metered', unitAmount: number): Price => ({
  id,
  scope,
  version: 1,
  created: 1,
  product: 'prod_1',
  active: true,
  currency: 'usd',
  unitAmount,
  unitAmountDecimal: String(unitAmount),
  billingScheme: 'per_unit',
  tiersMode: null,
  tiers: null,
  transformQuantity: null,
  recurring: { interval: 'month', intervalCount: 1, usageType, meter: usageType === 'metered' ? 'mtr_1' : null },
  type: 'recurring',
  nickname: null,
  lookupKey: null,
  taxBehavior: 'unspecified',
  metadata: {},
  currencyOptions: {},
});
const metered = priceOf('price_metered', 'metered', 50);
const licensed = priceOf('price_licensed', 'licensed', 1500);

function setup() {
  const subscriptions = memorySubscriptionRepository();
  const customers = memoryOwnedStore<Customer>({ id: 'cus_1', scope, version: 1, defaultSource: 'card_1' } as Customer);
  const recorded = recordingEmitter();
  const time = { now: start };
  const usage = new Map<string, { quantity: number; amount: number }>();
  const invoicing = memorySubscriptionInvoicing(subscriptions, recorded.events, () => 'paid', usage);
  const service = subscriptionService({
    subscriptions,
    prices: memoryOwnedStore<Price>(metered, licensed),
    customers,
    events: recorded.events,
    billingTime: fixedBillingTime(() => time.now),
    invoicing,
    prorationInvoicing: recordingProrationInvoicing(),
    clock: () => time.now,
  });
  return { service, subscriptions, invoicing, time, usage };
}

const create = (params: Record<string, unknown>) => createSubscriptionParams.parse({ customer: 'cus_1', ...params });

describe('billing thresholds: the decision', () => {
  const base = {
    billingThresholds: { amountGte: 1000, resetBillingCycleAnchor: false },
    items: [{ id: 'si_1', billingThresholds: { usageGte: 30 } }],
  } as unknown as Subscription;

  it('Given amount_gte 1000, when the running amount is 999, 1000 or 1250, then only 1000 and more reach it', () => {
    expect(thresholdReached(base, [{ subscriptionItem: 'si_1', quantity: 19, amount: 999 }])).toBeNull();
    expect(thresholdReached(base, [{ subscriptionItem: 'si_1', quantity: 20, amount: 1000 }])).toEqual({ kind: 'amount', amount: 1000 });
    expect(thresholdReached(base, [{ subscriptionItem: 'si_1', quantity: 25, amount: 1250 }])).toEqual({ kind: 'amount', amount: 1250 });
  });

  it('Given usage_gte 30 on an item and no amount threshold, when its usage is 29 or 30, then only 30 reaches it', () => {
    const itemOnly = { ...base, billingThresholds: null } as Subscription;
    expect(thresholdReached(itemOnly, [{ subscriptionItem: 'si_1', quantity: 29, amount: 1450 }])).toBeNull();
    expect(thresholdReached(itemOnly, [{ subscriptionItem: 'si_1', quantity: 30, amount: 1500 }])).toEqual({ kind: 'usage', item: 'si_1', quantity: 30 });
  });

  it('Given the amounts of several metered items, when summed past amount_gte, then it is reached though no item is', () => {
    const lines = [
      { subscriptionItem: 'si_1', quantity: 10, amount: 500 },
      { subscriptionItem: 'si_2', quantity: 10, amount: 500 },
    ];
    expect(thresholdReached(base, lines)).toEqual({ kind: 'amount', amount: 1000 });
  });

  it('Given a subscription, when asked whether thresholds apply, then only an active or past_due one inside its period and past what was billed', () => {
    const running = {
      ...base,
      status: 'active',
      endedAt: null,
      pauseCollection: null,
      currentPeriodStart: start,
      currentPeriodEnd: start + 30 * 86_400_000,
      usageBilledUntil: null,
    } as Subscription;
    expect(thresholdsApply(running, start + minute)).toBe(true);
    expect(thresholdsApply(running, start)).toBe(false);
    expect(thresholdsApply(running, running.currentPeriodEnd)).toBe(false);
    expect(thresholdsApply({ ...running, usageBilledUntil: start + minute }, start + minute)).toBe(false);
    expect(thresholdsApply({ ...running, status: 'trialing' }, start + minute)).toBe(false);
    expect(thresholdsApply({ ...running, status: 'past_due' }, start + minute)).toBe(true);
    expect(thresholdsApply({ ...running, billingThresholds: null, items: [] }, start + minute)).toBe(false);
  });

  it('Given a time within a minute, when made a threshold time, then it is the minute’s start (the usage reader’s bounds)', () => {
    expect(thresholdTime(start + 59_999)).toBe(start);
    expect(thresholdTime(start + minute)).toBe(start + minute);
  });

  it('Given amount_gte under the currency’s minimum or an item threshold on a licensed price, when checked, then each is refused naming its parameter', () => {
    expect(() => checkAmountThreshold({ amountGte: 49, resetBillingCycleAnchor: false }, 'usd')).toThrow(
      expect.objectContaining({ param: 'billing_thresholds[amount_gte]' }),
    );
    expect(() => checkAmountThreshold({ amountGte: 50, resetBillingCycleAnchor: false }, 'usd')).not.toThrow();
    const items = [{ id: 'si_1', price: licensed, billingThresholds: { usageGte: 5 } }] as Subscription['items'];
    expect(() => checkItemThresholds(items, (index) => `items[${index}][billing_thresholds]`)).toThrow(
      expect.objectContaining({ param: 'items[0][billing_thresholds]' }),
    );
  });

  it('Given reset_billing_cycle_anchor, when the threshold step is planned, then every item starts a new period at the threshold and the anchor moves there', () => {
    const at = start + 10 * 86_400_000;
    const subscription = {
      ...base,
      billingThresholds: { amountGte: 1000, resetBillingCycleAnchor: true },
      items: [
        { id: 'si_m', price: metered },
        { id: 'si_l', price: licensed },
      ],
      billingCycleAnchor: start,
      currentPeriodStart: start,
      currentPeriodEnd: Date.parse('2026-02-15T12:00:00Z'),
    } as unknown as Subscription;
    const { plan, next } = thresholdStep(subscription, at);
    const nextEnd = Date.parse('2026-02-25T12:00:00Z');
    expect(plan).toEqual({
      billingReason: 'subscription_threshold',
      collection: 'finalize',
      items: [
        { id: 'si_m', period: { start: at, end: nextEnd } },
        { id: 'si_l', period: { start: at, end: nextEnd } },
      ],
    });
    expect(next).toMatchObject({ billingCycleAnchor: at, currentPeriodStart: at, currentPeriodEnd: nextEnd, usageBilledUntil: at });
    const kept = thresholdStep({ ...subscription, billingThresholds: { amountGte: 1000, resetBillingCycleAnchor: false } }, at);
    expect(kept.plan.items).toEqual([{ id: 'si_m', period: { start: at, end: at } }]);
    expect(kept.next).toMatchObject({ billingCycleAnchor: start, currentPeriodEnd: subscription.currentPeriodEnd, usageBilledUntil: at });
  });
});

describe('billing thresholds: the service’s evaluation (fakes)', () => {
  it('Given usage past amount_gte, when six evaluations race on the version read, then one threshold invoice is written and the usage is billed up to the minute', async () => {
    const { service, invoicing, subscriptions, time, usage } = setup();
    const made = await service.create({ origin: originOf(scope) }, create({ items: [{ price: metered.id }], billing_thresholds: { amount_gte: 1000 } }));
    time.now = start + 3 * 86_400_000 + 30_000;
    usage.set(made.items[0]!.id, { quantity: 25, amount: 1250 });

    const read = (await subscriptions.get(scope, made.id))!;
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => service.evaluateThresholds(read, time.now)));

    expect(outcomes.filter((outcome) => outcome === 'invoiced')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'lost')).toHaveLength(5);
    const thresholdInvoices = invoicing.invoices.filter((invoice) => invoice.plan.billingReason === 'subscription_threshold');
    expect(thresholdInvoices).toMatchObject([{ settlement: 'advance', at: start + 3 * 86_400_000 }]);
    const after = (await subscriptions.get(scope, made.id))!;
    expect(after).toMatchObject({ usageBilledUntil: start + 3 * 86_400_000, latestInvoice: thresholdInvoices[0]!.id, status: 'active' });
    // Evaluated again on the new version: the usage since then is what counts, and the time has not moved past it.
    expect(await service.evaluateThresholds(after, time.now)).toBe('skipped');
  });

  it('Given usage below every threshold, when evaluated, then nothing is written', async () => {
    const { service, invoicing, subscriptions, time, usage } = setup();
    const made = await service.create(
      { origin: originOf(scope) },
      create({ items: [{ price: metered.id, billing_thresholds: { usage_gte: 30 } }], billing_thresholds: { amount_gte: 5000 } }),
    );
    time.now = start + 86_400_000;
    usage.set(made.items[0]!.id, { quantity: 29, amount: 1450 });
    expect(await service.evaluateThresholds(made, time.now)).toBe('below');
    expect(invoicing.invoices).toHaveLength(1);
    expect((await subscriptions.get(scope, made.id))!.version).toBe(made.version);
  });

  it('Given an evaluation racing the period-end renewal, when the renewal writes first, then the evaluation’s write loses and no threshold invoice is made', async () => {
    const { service, invoicing, subscriptions, time, usage } = setup();
    const made = await service.create({ origin: originOf(scope) }, create({ items: [{ price: metered.id }], billing_thresholds: { amount_gte: 1000 } }));
    usage.set(made.items[0]!.id, { quantity: 25, amount: 1250 });
    const read = (await subscriptions.get(scope, made.id))!;
    time.now = made.currentPeriodEnd;
    await service.processDue(scope, made.id, made.currentPeriodEnd);
    // The evaluator read the subscription before the renewal, a minute before the period's end.
    expect(await service.evaluateThresholds(read, made.currentPeriodEnd - minute)).toBe('lost');
    expect(invoicing.invoices.filter((invoice) => invoice.plan.billingReason === 'subscription_threshold')).toHaveLength(0);
  });
});
