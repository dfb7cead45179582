import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { meteredClocks, monthAfter, nowSeconds } from '../support/metered-clocks.ts';
import { eventually } from '../support/wait.ts';
const sdkError = (promise: Promise<unknown>) => promise.then(() => undefined).catch((error: unknown) => error as Stripe.errors.StripeError);

/**
 * Billing thresholds on test clocks, through the official SDK: a sum meter behind a metered price of 50 per
 * unit, a subscription invoiced early (`subscription_threshold`) once its usage reaches `amount_gte` or an
 * item's `usage_gte`, the period-end invoice billing only the usage after it. Each scenario has its own
 * clock, started ten minutes before now: meter events are timestamped on the stack's clock, inside the period.
 */
describe('billing thresholds on subscriptions, through the official SDK', () => {
  let key: string;
  let client: Stripe;
  let publishable: Stripe;
  let meter: Stripe.Billing.Meter;
  let product: Stripe.Product;
  let metered: Stripe.Price;
  let licensed: Stripe.Price;

  const report = (customerId: string, value: number, timestamp: number) =>
    client.billing.meterEvents.create({ event_name: 'threshold_calls', payload: { service_customer_id: customerId, value: String(value) }, timestamp });
  const { card, usageBecomes, onClock, advanceTo } = meteredClocks(() => ({ client, publishable, meter }));
  const invoicesOf = async (subscriptionId: string, reason: string) =>
    (await client.invoices.list({ subscription: subscriptionId, limit: 100 })).data
      .filter((invoice) => invoice.billing_reason === reason)
      .sort((a, b) => a.created - b.created);
  const linesOf = (invoice: Stripe.Invoice) => invoice.lines.data.map((line) => [line.quantity, line.amount, line.period.start, line.period.end]);

  beforeAll(async () => {
    const platform = await newPlatform();
    key = platform.secret_key;
    client = sdk(key);
    publishable = sdk(platform.publishable_key);
    meter = await client.billing.meters.create({ display_name: 'Calls', event_name: 'threshold_calls', default_aggregation: { formula: 'sum' } });
    product = await client.products.create({ name: 'API' });
    metered = await client.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 50,
      recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
    });
    licensed = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 1500, recurring: { interval: 'month' } });
  });

  it('Given amount_gte 1000 and usage of 25 at 50, when the clock advances, then a paid subscription_threshold invoice bills the 25 and the period-end invoice only the usage after it', async () => {
    const { start, clock, customer } = await onClock('Amount threshold');
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: metered.id }], billing_thresholds: { amount_gte: 1000 } });
    expect(subscription.billing_thresholds).toEqual({ amount_gte: 1000, reset_billing_cycle_anchor: false });
    expect(subscription.items.data[0]!.billing_thresholds).toBeNull();

    // When usage passes the threshold and the clock moves on a day
    await report(customer.id, 25, nowSeconds() - 120);
    await usageBecomes(customer.id, start, 25);
    let moved = await advanceTo(clock.id, start + 86_400);

    // Then one threshold invoice billed the 25 (1,250), finalized and paid within the day
    const [threshold, ...others] = await invoicesOf(subscription.id, 'subscription_threshold');
    expect(others).toHaveLength(0);
    expect(threshold).toMatchObject({ status: 'paid', amount_paid: 1250, parent: { subscription_details: { subscription: subscription.id } } });
    const [[quantity, amount, lineStart, billedUntil]] = linesOf(threshold!) as [[number, number, number, number]];
    expect([quantity, amount, lineStart]).toEqual([25, 1250, start]);
    expect(billedUntil % 60).toBe(0);
    expect(billedUntil).toBeGreaterThan(start);
    const after = await client.subscriptions.retrieve(subscription.id);
    expect(after).toMatchObject({ status: 'active', latest_invoice: threshold!.id, billing_cycle_anchor: subscription.billing_cycle_anchor });

    // And usage after it (4 units, below the threshold) is billed at the period's end, from where the threshold stopped
    await report(customer.id, 4, nowSeconds() + 60);
    await usageBecomes(customer.id, start, 29);
    const periodEnd = monthAfter(start);
    moved = await advanceTo(moved.id, periodEnd + 2 * 3600);
    expect(moved.frozen_time).toBe(periodEnd + 2 * 3600);
    const [cycle] = await invoicesOf(subscription.id, 'subscription_cycle');
    expect(cycle).toMatchObject({ status: 'paid', amount_paid: 200 });
    expect(linesOf(cycle!)).toEqual([[4, 200, billedUntil, periodEnd]]);
    expect(await invoicesOf(subscription.id, 'subscription_threshold')).toHaveLength(1);
  });

  it('Given an item with usage_gte 10, when its usage reaches 12, then a threshold invoice bills the 12 at 600', async () => {
    const { start, clock, customer } = await onClock('Usage threshold');
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: metered.id, billing_thresholds: { usage_gte: 10 } }] });
    expect(subscription.billing_thresholds).toBeNull();
    expect(subscription.items.data[0]!.billing_thresholds).toEqual({ usage_gte: 10 });

    await report(customer.id, 12, nowSeconds() - 120);
    await usageBecomes(customer.id, start, 12);
    await advanceTo(clock.id, start + 86_400);

    const [threshold] = await invoicesOf(subscription.id, 'subscription_threshold');
    expect(threshold).toMatchObject({ status: 'paid', amount_paid: 600 });
    expect(linesOf(threshold!).map(([q, a]) => [q, a])).toEqual([[12, 600]]);
  });

  it('Given reset_billing_cycle_anchor, when the threshold is reached, then the anchor moves to it and the invoice bills the usage and the licensed item for the new period', async () => {
    const { start, clock, customer } = await onClock('Reset anchor');
    const subscription = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price: metered.id }, { price: licensed.id }],
      billing_thresholds: { amount_gte: 1000, reset_billing_cycle_anchor: true },
    });
    expect(subscription.billing_thresholds).toEqual({ amount_gte: 1000, reset_billing_cycle_anchor: true });

    await report(customer.id, 25, nowSeconds() - 120);
    await usageBecomes(customer.id, start, 25);
    await advanceTo(clock.id, start + 86_400);

    const [threshold] = await invoicesOf(subscription.id, 'subscription_threshold');
    expect(threshold).toMatchObject({ status: 'paid', amount_paid: 1250 + 1500 });
    const usageLine = threshold!.lines.data.find((line) => line.amount === 1250)!;
    const anchor = usageLine.period.end;
    expect(usageLine).toMatchObject({ quantity: 25, period: { start } });
    expect(threshold!.lines.data.find((line) => line.amount === 1500)).toMatchObject({ quantity: 1, period: { start: anchor, end: monthAfter(anchor) } });
    const after = await client.subscriptions.retrieve(subscription.id);
    expect(after.billing_cycle_anchor).toBe(anchor);
    expect(after.items.data.map((item) => [item.current_period_start, item.current_period_end])).toEqual([
      [anchor, monthAfter(anchor)],
      [anchor, monthAfter(anchor)],
    ]);
  });

  it('Given a customer on the stack’s clock with amount_gte 1000, when usage of 25 is counted, then the scheduled evaluator issues one subscription_threshold draft for it', async () => {
    const customer = await client.customers.create({ name: 'Stack clock', source: await card() });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: metered.id }], billing_thresholds: { amount_gte: 1000 } });
    await report(customer.id, 25, nowSeconds());
    await usageBecomes(customer.id, subscription.created, 25);

    // The evaluator runs on its schedule and bills whole minutes: waited on (up to a minute and a run), not slept
    const [threshold] = await eventually(async () => {
      const found = await invoicesOf(subscription.id, 'subscription_threshold');
      return found.length > 0 ? found : undefined;
    }, 90_000);
    expect(threshold).toMatchObject({ status: 'draft', total: 1250, auto_advance: true });
    expect(linesOf(threshold!).map(([q, a, lineStart]) => [q, a, lineStart])).toEqual([[25, 1250, subscription.created]]);
    expect((await client.subscriptions.retrieve(subscription.id)).latest_invoice).toBe(threshold!.id);
    // Later runs find the usage billed: still one threshold invoice
    const usageAfter = await client.invoices.createPreview({ subscription: subscription.id });
    expect(usageAfter.lines.data.find((line) => line.amount === 1250)).toBeUndefined();
    expect(await invoicesOf(subscription.id, 'subscription_threshold')).toHaveLength(1);
  }, 150_000);

  it('Given thresholds, when updated with an empty string on the subscription and the item, then both are removed', async () => {
    const customer = await client.customers.create({ name: 'Unset', source: await card() });
    const subscription = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price: metered.id, billing_thresholds: { usage_gte: 100 } }],
      billing_thresholds: { amount_gte: 5000 },
    });
    const item = subscription.items.data[0]!;
    const changed = await client.subscriptions.update(subscription.id, { billing_thresholds: { amount_gte: 7000, reset_billing_cycle_anchor: true } });
    expect(changed.billing_thresholds).toEqual({ amount_gte: 7000, reset_billing_cycle_anchor: true });
    expect((await client.subscriptions.update(subscription.id, { billing_thresholds: '' })).billing_thresholds).toBeNull();
    expect((await client.subscriptionItems.update(item.id, { billing_thresholds: '' })).billing_thresholds).toBeNull();
    const set = await client.subscriptionItems.update(item.id, { billing_thresholds: { usage_gte: 5 } });
    expect(set.billing_thresholds).toEqual({ usage_gte: 5 });
    const updated = await client.subscriptions.update(subscription.id, { items: [{ id: item.id, billing_thresholds: '' }] });
    expect(updated.items.data[0]!.billing_thresholds).toBeNull();
    const added = await client.subscriptionItems.create({
      subscription: subscription.id,
      price: (
        await client.prices.create({
          product: product.id,
          currency: 'usd',
          unit_amount: 7,
          recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
        })
      ).id,
      billing_thresholds: { usage_gte: 3 },
      proration_behavior: 'none',
    });
    expect(added.billing_thresholds).toEqual({ usage_gte: 3 });
  });

  it('Given bad thresholds over raw HTTP, when creating or updating, then each is a 400 naming the parameter', async () => {
    const customer = await client.customers.create({ name: 'Refused' });
    const create = (form: string) => api('POST', '/v1/subscriptions', { key, form: `customer=${customer.id}&${form}` });

    const small = await create(`items[0][price]=${metered.id}&billing_thresholds[amount_gte]=10`);
    expect(small.status).toBe(400);
    expect(small.body.error).toMatchObject({ type: 'invalid_request_error', param: 'billing_thresholds[amount_gte]' });
    expect(small.body.error.message).toContain('50');

    const zero = await create(`items[0][price]=${metered.id}&items[0][billing_thresholds][usage_gte]=0`);
    expect(zero.status).toBe(400);
    expect(zero.body.error.param).toBe('items[0][billing_thresholds][usage_gte]');

    const onLicensed = await create(`items[0][price]=${licensed.id}&items[0][billing_thresholds][usage_gte]=5`);
    expect(onLicensed.status).toBe(400);
    expect(onLicensed.body.error).toMatchObject({ code: 'parameter_invalid', param: 'items[0][billing_thresholds]' });
    expect(onLicensed.body.error.message).toContain('metered');

    const unknown = await create(`items[0][price]=${metered.id}&billing_thresholds[amount_lte]=5000`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('billing_thresholds[amount_lte]');

    const notANumber = await create(`items[0][price]=${metered.id}&billing_thresholds[amount_gte]=lots`);
    expect(notANumber.status).toBe(400);
    expect(notANumber.body.error.param).toBe('billing_thresholds[amount_gte]');

    const made = await client.subscriptions.create({ customer: customer.id, items: [{ price: licensed.id }], payment_behavior: 'default_incomplete' });
    const update = await api('POST', `/v1/subscriptions/${made.id}`, { key, form: 'billing_thresholds[amount_gte]=49' });
    expect(update.status).toBe(400);
    expect(update.body.error.param).toBe('billing_thresholds[amount_gte]');
    const item = await api('POST', `/v1/subscription_items/${made.items.data[0]!.id}`, { key, form: 'billing_thresholds[usage_gte]=5' });
    expect(item.status).toBe(400);
    expect(item.body.error.param).toBe('billing_thresholds');
    expect(await sdkError(client.subscriptions.update(made.id, { billing_thresholds: { amount_gte: 1_000_000_000_000 } }))).toMatchObject({
      param: 'billing_thresholds[amount_gte]',
    });
  });
});
