import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Scope } from '#shared/platform/types.ts';
import {
  cancelSubscriptionParams,
  createSubscriptionItemParams,
  createSubscriptionParams,
  deleteSubscriptionItemParams,
  updateSubscriptionItemParams,
  updateSubscriptionParams,
} from '#shared/subscriptions/schemas.ts';
import { subscriptionService } from '#shared/subscriptions/service.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../../support/fakes.ts';
import { fixedBillingTime, memorySubscriptionInvoicing } from '../../support/billing-fakes.ts';
import { recordingProrationInvoicing } from '../../support/proration-fakes.ts';
import { memorySubscriptionRepository } from '../../support/subscription-fakes.ts';

const scope: Scope = { accountId: 'acct_prorations', livemode: false };
const request = { origin: originOf(scope) };
const day = 86_400_000;
// 2026-03-01T00:00:00Z: March has 31 days, so the first period is 31 × 86,400 seconds.
const start = Date.UTC(2026, 2, 1);
const periodEnd = Date.UTC(2026, 3, 1);

const price = (id: string, unitAmountDecimal: string, overrides: Partial<Price> = {}): Price => ({
  id,
  scope,
  version: 1,
  created: 1,
  product: 'prod_gold',
  active: true,
  currency: 'usd',
  unitAmount: null,
  unitAmountDecimal,
  billingScheme: 'per_unit',
  tiersMode: null,
  tiers: null,
  transformQuantity: null,
  recurring: { interval: 'month', intervalCount: 1, usageType: 'licensed', meter: null },
  type: 'recurring',
  nickname: null,
  lookupKey: null,
  taxBehavior: 'unspecified',
  metadata: {},
  currencyOptions: {},
  ...overrides,
});

async function setup(options: { flexible?: boolean; trial?: boolean; unit?: string } = {}) {
  const subscriptions = memorySubscriptionRepository();
  const prices = memoryOwnedStore<Price>(
    price('price_a', options.unit ?? '3100'),
    price('price_b', '6200', { product: 'prod_platinum' }),
    price('price_free', '0'),
    price('price_year', '31000', { recurring: { interval: 'year', intervalCount: 1, usageType: 'licensed', meter: null } }),
  );
  const customers = memoryOwnedStore<Customer>({ id: 'cus_1', scope, version: 1 } as Customer);
  const recorded = recordingEmitter();
  const time = { now: start };
  let real = 1_800_000_000_000;
  const prorationInvoicing = recordingProrationInvoicing(() => subscriptions.invoiceItems, { prod_gold: 'Gold', prod_platinum: 'Platinum' });
  const service = subscriptionService({
    subscriptions,
    prices,
    customers,
    events: recorded.events,
    billingTime: fixedBillingTime(() => time.now),
    invoicing: memorySubscriptionInvoicing(subscriptions, recorded.events),
    prorationInvoicing,
    clock: () => real++,
  });
  const subscription = await service.create(
    request,
    createSubscriptionParams.parse({
      customer: 'cus_1',
      items: [{ price: 'price_a', quantity: 2 }],
      ...(options.flexible ? { billing_mode: { type: 'flexible' } } : {}),
      ...(options.trial ? { trial_period_days: 14 } : {}),
    }),
  );
  const eventTypes = () => recorded.written.at(-1)!.snapshotEvents.map((event) => event.type);
  return { service, subscriptions, subscription, itemId: subscription.items[0]!.id, time, prorationInvoicing, eventTypes };
}

describe('prorations of subscription changes (service with the shared fakes)', () => {
  it('Given a quantity change from 2 to 3 with 10 of 31 days left, when made with the default behaviour, then two pending proration items are written with the change and announced in its outbox', async () => {
    const { service, subscriptions, subscription, itemId, time, eventTypes } = await setup();
    time.now = start + 21 * day;
    const changed = await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '3' }));
    expect(changed.item.quantity).toBe(3);
    const period = { start: time.now, end: periodEnd };
    expect(subscriptions.invoiceItems).toMatchObject([
      {
        amount: -2000,
        quantity: 2,
        unitAmountDecimal: '3100',
        description: 'Unused time on 2 × Gold after 22 Mar 2026',
        proration: true,
        pending: true,
        invoice: null,
        period,
        subscription: subscription.id,
        subscriptionItem: itemId,
        currency: 'usd',
        customer: 'cus_1',
        created: time.now,
      },
      { amount: 3000, quantity: 3, description: 'Remaining time on 3 × Gold after 22 Mar 2026', proration: true, period, subscriptionItem: itemId },
    ]);
    expect(eventTypes()).toEqual(['customer.subscription.updated', 'invoiceitem.created', 'invoiceitem.created']);
  });

  it('Given a price change, an item added and an item deleted in one update, when prorated, then each gets its lines on its own item', async () => {
    const { service, subscriptions, subscription, itemId, time } = await setup();
    time.now = start + 21 * day;
    const updated = await service.update(
      request,
      subscription.id,
      updateSubscriptionParams.parse({ items: [{ id: itemId, price: 'price_b' }, { price: 'price_free' }] }),
    );
    expect(subscriptions.invoiceItems.map((item) => [item.amount, item.subscriptionItem])).toEqual([
      [-2000, itemId],
      [4000, itemId],
    ]);
    const free = updated.items.find((item) => item.price.id === 'price_free')!;
    subscriptions.invoiceItems.length = 0;
    time.now = start + 26 * day;
    await service.deleteItem(request, itemId, deleteSubscriptionItemParams.parse({}));
    // 5 of 31 days of 2 × 6200; the free item prorated nothing either way.
    expect(subscriptions.invoiceItems.map((item) => [item.amount, item.description])).toEqual([[-2000, 'Unused time on 2 × Platinum after 27 Mar 2026']]);
    expect(free.id).toBeDefined();
  });

  it('Given proration_behavior=none, when the quantity changes, then no invoice item is written; always_invoice writes them and invoices them at once', async () => {
    const { service, subscriptions, itemId, time, prorationInvoicing } = await setup();
    time.now = start + 21 * day;
    await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '3', proration_behavior: 'none' }));
    expect(subscriptions.invoiceItems).toEqual([]);
    expect(prorationInvoicing.calls).toEqual([]);
    await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '1', proration_behavior: 'always_invoice' }));
    expect(subscriptions.invoiceItems.map((item) => item.amount)).toEqual([-3000, 1000]);
    expect(prorationInvoicing.calls.map((call) => [call.billingReason, call.subscription.items[0]!.quantity])).toEqual([['subscription_update', 1]]);
  });

  it('Given a change of metadata only, a trialing subscription, or always_invoice with nothing to prorate, when changed, then nothing is prorated or invoiced', async () => {
    const first = await setup();
    first.time.now = start + 3 * day;
    await first.service.updateItem(request, first.itemId, updateSubscriptionItemParams.parse({ metadata: { a: '1' }, proration_behavior: 'always_invoice' }));
    expect(first.subscriptions.invoiceItems).toEqual([]);
    expect(first.prorationInvoicing.calls).toEqual([]);
    const trialing = await setup({ trial: true });
    trialing.time.now = start + 3 * day;
    await trialing.service.updateItem(request, trialing.itemId, updateSubscriptionItemParams.parse({ quantity: '5' }));
    expect(trialing.subscriptions.invoiceItems).toEqual([]);
  });

  it('Given proration_date, when inside the current period it is used, and outside it the change is refused naming it', async () => {
    const { service, subscriptions, subscription, itemId, time } = await setup();
    time.now = start + 25 * day;
    await expect(
      service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '3', proration_date: String((periodEnd + day) / 1000) })),
    ).rejects.toMatchObject({ param: 'proration_date', code: 'parameter_invalid' });
    await service.update(
      request,
      subscription.id,
      updateSubscriptionParams.parse({ items: [{ id: itemId, quantity: '3' }], proration_date: String((start + 21 * day) / 1000) }),
    );
    expect(subscriptions.invoiceItems.map((item) => item.amount)).toEqual([-2000, 3000]);
  });

  it('Given a prorated change of billing interval, when asked for, then it is refused (the billing cycle would restart); with none it is made', async () => {
    const { service, itemId, time } = await setup();
    time.now = start + 5 * day;
    await expect(service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ price: 'price_year' }))).rejects.toMatchObject({
      param: 'proration_behavior',
    });
    const changed = await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ price: 'price_year', proration_behavior: 'none' }));
    expect(changed.item.price.id).toBe('price_year');
  });

  it('Given two requests racing to set the same quantity, when both are made, then the change is prorated once (the loser re-reads and finds nothing to prorate)', async () => {
    const { service, subscriptions, itemId, time } = await setup();
    time.now = start + 21 * day;
    await Promise.all([
      service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '3' })),
      service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '3' })),
    ]);
    expect(subscriptions.invoiceItems.map((item) => item.amount)).toEqual([-2000, 3000]);
  });

  it('Given a cancellation with prorate and invoice_now, when made, then the unused time is credited with it and a final invoice is asked for; without them, the pending prorations are removed', async () => {
    const { service, subscriptions, subscription, time, prorationInvoicing, eventTypes } = await setup();
    time.now = start + 21 * day;
    await service.cancel(request, subscription.id, cancelSubscriptionParams.parse({ prorate: 'true', invoice_now: 'true' }));
    expect(subscriptions.invoiceItems.map((item) => [item.amount, item.description])).toEqual([[-2000, 'Unused time on 2 × Gold after 22 Mar 2026']]);
    expect(eventTypes()).toEqual(['customer.subscription.deleted', 'invoiceitem.created']);
    expect(prorationInvoicing.calls.map((call) => [call.billingReason, call.subscription.status])).toEqual([['subscription_cycle', 'canceled']]);
    const other = await setup();
    other.time.now = start + 21 * day;
    await other.service.updateItem(request, other.itemId, updateSubscriptionItemParams.parse({ quantity: '3' }));
    expect(other.subscriptions.invoiceItems).toHaveLength(2);
    await other.service.cancel(request, other.subscription.id, cancelSubscriptionParams.parse({}));
    // Neither flag: the pending prorations are removed with the cancellation, as the reference documents.
    expect(other.subscriptions.invoiceItems).toEqual([]);
    expect(other.eventTypes()).toEqual(['customer.subscription.deleted', 'invoiceitem.deleted', 'invoiceitem.deleted']);
    expect(other.prorationInvoicing.calls).toEqual([]);
  });

  it('Given the flexible mode, when an item is changed twice, then the second credit is counted from what the first change debited, not from the price', async () => {
    const { service, subscriptions, itemId, time } = await setup({ flexible: true, unit: '1000' });
    // 2 × 1000 for 31 days; at day 10 (21 left) to 3: credit 2000 × 21/31 = 1354.8 → 1355, debit 3000 × 21/31 = 2032.3 → 2032.
    time.now = start + 10 * day;
    await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '3' }));
    // At day 20 (11 left) back to 2: the credit is 2032 × 11/21 = 1064.4 → 1064 (classic would credit 3000 × 11/31 = 1064.5 → 1065).
    time.now = start + 20 * day;
    await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '2' }));
    expect(subscriptions.invoiceItems.map((item) => item.amount)).toEqual([-1355, 2032, -1064, 710]);
  });

  it('Given the flexible mode, when an item added without prorations (debited nothing) is deleted later, then nothing is credited; in classic, its price is', async () => {
    for (const flexible of [true, false]) {
      const { service, subscriptions, subscription, time } = await setup({ flexible });
      time.now = start + 10 * day;
      const added = await service.createItem(
        request,
        createSubscriptionItemParams.parse({ subscription: subscription.id, price: 'price_b', proration_behavior: 'none' }),
      );
      time.now = start + 20 * day;
      await service.deleteItem(request, added.item.id, deleteSubscriptionItemParams.parse({}));
      // Classic credits 6200 × 11/31 = 2200 whatever was billed; flexible credits from the debit, which was 0.
      expect(subscriptions.invoiceItems.map((item) => item.amount)).toEqual(flexible ? [] : [-2200]);
    }
  });

  it('Given the classic mode and the same changes, when prorated, then each credit is counted from the current price over the whole period', async () => {
    const { service, subscriptions, itemId, time } = await setup({ unit: '1000' });
    time.now = start + 10 * day;
    await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '3' }));
    time.now = start + 20 * day;
    await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '2' }));
    expect(subscriptions.invoiceItems.map((item) => item.amount)).toEqual([-1355, 2032, -1065, 710]);
  });

  it('Given any schedule of quantity and price changes in a period, in either mode, when prorated, then the period nets the exact time-weighted price within one unit per line, amounts are integers, and (flexible) no credit exceeds the debit it credits', async () => {
    const change = fc.record({
      afterDays: fc.integer({ min: 0, max: 5 * 86_400 }).map((seconds) => seconds * 1000),
      quantity: fc.integer({ min: 0, max: 50 }),
      price: fc.constantFrom('price_a', 'price_b'),
    });
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(change, { minLength: 1, maxLength: 6 }), async (flexible, changes) => {
        const { service, subscriptions, itemId, time } = await setup({ flexible, unit: '3333.333333333333' });
        const unit = { price_a: 3333.333333333333, price_b: 6200 };
        let state = { price: 'price_a' as 'price_a' | 'price_b', quantity: 2, since: start };
        let exactNet = 0;
        const total = periodEnd - start;
        for (const next of changes) {
          const at = Math.min(time.now + next.afterDays, periodEnd);
          exactNet += (unit[state.price] * state.quantity * (at - state.since)) / total;
          time.now = at;
          await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: String(next.quantity), price: next.price }));
          state = { price: next.price, quantity: next.quantity, since: at };
        }
        exactNet += (unit[state.price] * state.quantity * (periodEnd - state.since)) / total;
        const lines = subscriptions.invoiceItems;
        const initial = Math.round(unit.price_a * 2);
        const net = initial + lines.reduce((sum, line) => sum + line.amount, 0);
        expect(lines.every((line) => Number.isSafeInteger(line.amount) && line.amount !== 0)).toBe(true);
        expect(Math.abs(net - exactNet)).toBeLessThanOrEqual(lines.length + 0.5 + 1e-6);
        if (flexible) {
          let debit = initial;
          for (const line of lines) {
            if (line.amount < 0) expect(-line.amount).toBeLessThanOrEqual(debit);
            else debit = line.amount;
            if (line.amount < 0) debit = 0;
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('Given an item added through /v1/subscription_items mid-period, when prorated, then its remaining time is charged on the new item', async () => {
    const { service, subscriptions, subscription, time } = await setup();
    time.now = start + 21 * day;
    const added = await service.createItem(request, createSubscriptionItemParams.parse({ subscription: subscription.id, price: 'price_b', quantity: '1' }));
    expect(subscriptions.invoiceItems.map((item) => [item.amount, item.subscriptionItem, item.description])).toEqual([
      [2000, added.item.id, 'Remaining time on Platinum after 22 Mar 2026'],
    ]);
  });
});
