import { describe, expect, it } from 'vitest';
import type { Price } from '#shared/catalogue/catalogue.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import type { Customer } from '#shared/customers/customer.ts';
import { createPreviewParams } from '#shared/invoices/preview-schemas.ts';
import type { Scope } from '#shared/platform/types.ts';
import { createSubscriptionParams, updateSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { subscriptionService } from '#shared/subscriptions/service.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../../support/fakes.ts';
import { fixedBillingTime, memorySubscriptionInvoicing } from '../../support/billing-fakes.ts';
import { recordingProrationInvoicing } from '../../support/proration-fakes.ts';
import { memorySubscriptionRepository } from '../../support/subscription-fakes.ts';

const scope: Scope = { accountId: 'acct_previews', livemode: false };
const request = { origin: originOf(scope) };
const day = 86_400_000;
// 2026-03-01T00:00:00Z: March has 31 days, so a change 21 days in leaves 10/31 of the period.
const start = Date.UTC(2026, 2, 1);
const periodEnd = Date.UTC(2026, 3, 1);
const changeAt = start + 21 * day;

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

async function setup() {
  const subscriptions = memorySubscriptionRepository();
  const prices = memoryOwnedStore<Price>(price('price_a', '3100'), price('price_b', '6200', { product: 'prod_platinum' }));
  const customers = memoryOwnedStore<Customer>({ id: 'cus_1', scope, version: 1 } as Customer);
  const recorded = recordingEmitter();
  const time = { now: start };
  const invoicing = memorySubscriptionInvoicing(subscriptions, recorded.events);
  const service = subscriptionService({
    subscriptions,
    prices,
    customers,
    events: recorded.events,
    billingTime: fixedBillingTime(() => time.now),
    invoicing,
    prorationInvoicing: recordingProrationInvoicing(() => subscriptions.invoiceItems, { prod_gold: 'Gold', prod_platinum: 'Platinum' }),
    clock: () => time.now,
  });
  const subscription = await service.create(request, createSubscriptionParams.parse({ customer: 'cus_1', items: [{ price: 'price_a', quantity: 2 }] }));
  time.now = changeAt;
  const preview = (form: Record<string, unknown>) => service.previewInvoice(scope, createPreviewParams.parse(form));
  return { service, subscriptions, subscription, itemId: subscription.items[0]!.id, prices, recorded, invoicing, preview };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof InvalidRequestError ? { code: error.code, param: error.param, message: error.message } : error),
  );

/** What an invoice item shows of a proration, to compare a preview's with the update's. */
const shown = (item: { amount: number; quantity: number; period: unknown; description: string | null; subscriptionItem: string | null }) => ({
  amount: item.amount,
  quantity: item.quantity,
  period: item.period,
  description: item.description,
  subscriptionItem: item.subscriptionItem,
});

describe('previewing a subscription change (service with the shared fakes)', () => {
  it('Given 10 of 31 days left, when a quantity change is previewed and then made with the same proration_date, then the preview’s prorations are the update’s, and the preview wrote nothing', async () => {
    const { service, subscriptions, subscription, itemId, recorded, invoicing, preview } = await setup();
    const writes = recorded.written.length;
    const stored = await subscriptions.get(scope, subscription.id);
    const details = { items: [{ id: itemId, quantity: '3' }], proration_date: String(changeAt / 1000) };

    await preview({ subscription: subscription.id, subscription_details: details });

    const [previewed] = invoicing.previews;
    expect(previewed!.change).toMatchObject({ prorationDate: changeAt, period: { kind: 'next' } });
    expect(previewed!.subscription.items[0]!.quantity).toBe(3);
    expect(recorded.written).toHaveLength(writes);
    expect(subscriptions.invoiceItems).toEqual([]);
    expect(await subscriptions.get(scope, subscription.id)).toEqual(stored);

    await service.update(request, subscription.id, updateSubscriptionParams.parse(details));
    expect(subscriptions.invoiceItems.map(shown)).toEqual(previewed!.change.prorations.map(shown));
    expect(previewed!.change.prorations.map((item) => item.amount)).toEqual([-2000, 3000]);
  });

  it('Given the three proration behaviours, when a price change is previewed, then always_invoice previews the prorations alone, create_prorations with the next period, and none makes none', async () => {
    const { subscription, itemId, invoicing, preview } = await setup();
    for (const behavior of ['always_invoice', 'create_prorations', 'none']) {
      await preview({ subscription: subscription.id, subscription_details: { items: [{ id: itemId, price: 'price_b' }], proration_behavior: behavior } });
    }
    expect(invoicing.previews.map(({ change }) => [change.period.kind, change.prorations.map((item) => item.amount), change.prorationDate])).toEqual([
      ['none', [-2000, 4000], changeAt],
      ['next', [-2000, 4000], changeAt],
      ['next', [], null],
    ]);
  });

  it('Given a proration_date outside the period, or with proration_behavior=none, when previewed, then each is refused naming subscription_details[proration_date]', async () => {
    const { subscription, itemId, preview } = await setup();
    const items = [{ id: itemId, quantity: '3' }];
    const outside = await refusal(
      preview({ subscription: subscription.id, subscription_details: { items, proration_date: String((periodEnd + day) / 1000) } }),
    );
    expect(outside).toMatchObject({ code: 'parameter_invalid', param: 'subscription_details[proration_date]' });
    const before = await refusal(preview({ subscription: subscription.id, subscription_details: { items, proration_date: String((start - day) / 1000) } }));
    expect(before).toMatchObject({ param: 'subscription_details[proration_date]' });
    const none = await refusal(
      preview({ subscription: subscription.id, subscription_details: { items, proration_behavior: 'none', proration_date: String(changeAt / 1000) } }),
    );
    expect(none).toMatchObject({ param: 'subscription_details[proration_date]' });
  });

  it('Given an item id of no item of the subscription, a deletion of the last item or a second price, when previewed, then each is refused naming the entry', async () => {
    const { subscription, itemId, preview } = await setup();
    const missing = await refusal(preview({ subscription: subscription.id, subscription_details: { items: [{ id: 'si_nope', quantity: '3' }] } }));
    expect(missing).toMatchObject({ code: 'resource_missing', param: 'subscription_details[items][0][id]' });
    const last = await refusal(preview({ subscription: subscription.id, subscription_details: { items: [{ id: itemId, deleted: 'true' }] } }));
    expect(last).toMatchObject({ param: 'subscription_details[items][0]' });
    const twice = await refusal(preview({ subscription: subscription.id, subscription_details: { items: [{ price: 'price_a' }] } }));
    expect(twice).toMatchObject({ param: 'subscription_details[items][0]' });
  });

  it('Given a subscription of another customer, when previewed with that customer, then it is refused as no such subscription', async () => {
    const { subscription, preview } = await setup();
    const answer = await refusal(preview({ customer: 'cus_other', subscription: subscription.id }));
    expect(answer).toMatchObject({ code: 'resource_missing', param: 'subscription', message: `No such subscription: '${subscription.id}'` });
  });

  it('Given cancel_at_period_end in the details, when nothing is prorated, then there is no upcoming invoice; with a change, the prorations alone are previewed', async () => {
    const { subscription, itemId, invoicing, preview } = await setup();
    expect(await refusal(preview({ subscription: subscription.id, subscription_details: { cancel_at_period_end: 'true' } }))).toMatchObject({
      code: 'invoice_upcoming_none',
    });
    await preview({ subscription: subscription.id, subscription_details: { cancel_at_period_end: 'true', items: [{ id: itemId, quantity: '1' }] } });
    expect(invoicing.previews.at(-1)!.change).toMatchObject({ period: { kind: 'none' } });
    expect(invoicing.previews.at(-1)!.change.prorations.map((item) => item.amount)).toEqual([-2000, 1000]);
  });

  it('Given a customer and items with price_data, when a new subscription is previewed, then its first invoice’s plan covers each item’s first period and no price is stored', async () => {
    const { prices, invoicing, preview } = await setup();
    const before = prices.items.size;
    await preview({
      customer: 'cus_1',
      subscription_details: {
        items: [
          { price: 'price_b' },
          { price_data: { currency: 'usd', product: 'prod_gold', unit_amount: '500', recurring: { interval: 'month' } }, quantity: '2' },
        ],
      },
    });
    const { subscription, change } = invoicing.previews.at(-1)!;
    expect(change.period.kind).toBe('first');
    // The price_data price is made in memory, inactive as the reference makes it, and never stored.
    expect(subscription.items.map((item) => [item.price.unitAmountDecimal, item.quantity, item.price.active])).toEqual([
      ['6200', 1, true],
      ['500', 2, false],
    ]);
    const firstPeriod = { start: changeAt, end: Date.UTC(2026, 3, 22) };
    expect(change.period.kind === 'first' && change.period.plan.items.map((item) => item.period)).toEqual([firstPeriod, firstPeriod]);
    expect(prices.items.size).toBe(before);
  });

  it('Given a new subscription previewed with a product that does not exist, an item id, or proration_date, then each is refused naming it', async () => {
    const { preview } = await setup();
    const unknownProduct = await refusal(
      preview({
        customer: 'cus_1',
        subscription_details: { items: [{ price_data: { currency: 'usd', product: 'prod_nope', unit_amount: '5', recurring: { interval: 'month' } } }] },
      }),
    );
    expect(unknownProduct).toMatchObject({ code: 'resource_missing', param: 'subscription_details[items][0][price_data][product]' });
    const withId = await refusal(preview({ customer: 'cus_1', subscription_details: { items: [{ id: 'si_1', price: 'price_a' }] } }));
    expect(withId).toMatchObject({ param: 'subscription_details[items][0][id]' });
    const dated = await refusal(preview({ customer: 'cus_1', subscription_details: { items: [{ price: 'price_a' }], proration_date: '1' } }));
    expect(dated).toMatchObject({ param: 'subscription_details[proration_date]' });
    const nobody = await refusal(preview({ subscription_details: { items: [{ price: 'price_a' }] } }));
    expect(nobody).toMatchObject({ code: 'parameter_missing', param: 'customer' });
  });

  it('Given the preview’s parameters, when one the service does not build is sent, then the strict schema refuses it by name', () => {
    for (const field of ['clear_usage', 'tax_rates', 'discounts', 'billing_thresholds']) {
      const parsed = createPreviewParams.safeParse({ subscription: 'sub_1', subscription_details: { items: [{ id: 'si_1', [field]: 'x' }] } });
      expect(parsed.success).toBe(false);
    }
    for (const field of ['default_tax_rates', 'pause', 'resume_at', 'start_date', 'cancel_now', 'billing_mode']) {
      expect(createPreviewParams.safeParse({ subscription: 'sub_1', subscription_details: { [field]: 'x' } }).success).toBe(false);
    }
  });
});
