import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';
import { meteredClocks, monthAfter, nowSeconds } from '../support/metered-clocks.ts';

/**
 * A metered item changed mid-period loses none of its usage: the usage counted under the price it had is
 * billed at that price (a line of its own), what is counted after the change at the new price, and the
 * usage of a metered item deleted mid-period is billed by the next invoice. Each clock starts ten minutes
 * before now and is moved just past now before the change, so the usage before it (timestamped by the stack's
 * clock, as meter events are) falls before the change and the usage sent after it, a minute ahead, after.
 */
describe('metered items changed or deleted mid-period, through the official SDK', () => {
  let client: Stripe;
  let publishable: Stripe;
  let meter: Stripe.Billing.Meter;
  let fifty: Stripe.Price;
  let hundred: Stripe.Price;
  let licensed: Stripe.Price;

  const report = (customerId: string, value: number, identifier: string, timestamp: number) =>
    client.billing.meterEvents.create({ event_name: 'item_calls', payload: { service_customer_id: customerId, value: String(value) }, identifier, timestamp });
  const { usageBecomes, onClock, advanceTo: advance } = meteredClocks(() => ({ client, publishable, meter }));
  const cycleInvoices = async (subscriptionId: string) =>
    (await client.invoices.list({ subscription: subscriptionId, limit: 100 })).data.filter((invoice) => invoice.billing_reason === 'subscription_cycle');
  const usageLines = (invoice: Stripe.Invoice) =>
    invoice.lines.data
      .filter((line) => line.pricing?.price_details?.price !== licensed.id)
      .map((line) => [line.pricing?.price_details?.price, line.quantity, line.amount])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    publishable = sdk(platform.publishable_key);
    meter = await client.billing.meters.create({ display_name: 'Item calls', event_name: 'item_calls', default_aggregation: { formula: 'sum' } });
    const product = await client.products.create({ name: 'Calls' });
    const metered = (unit_amount: number) =>
      client.prices.create({ product: product.id, currency: 'usd', unit_amount, recurring: { interval: 'month', usage_type: 'metered', meter: meter.id } });
    fifty = await metered(50);
    hundred = await metered(100);
    licensed = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 1000, recurring: { interval: 'month' } });
  });

  it('Given usage of 3 at 50, when the item’s price becomes 100 and 4 more are used, then the preview and the period’s invoice bill 3 at 50 and 4 at 100, each event once', async () => {
    const { start, clock, customer } = await onClock('Price change');
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: fifty.id }] });
    await report(customer.id, 3, 'change-1', start + 60);
    await usageBecomes(customer.id, start, 3);

    const changedAt = nowSeconds() + 60;
    await advance(clock.id, changedAt);
    const item = subscription.items.data[0]!;
    const changed = await client.subscriptionItems.update(item.id, { price: hundred.id, proration_behavior: 'none' });
    expect(changed.price.id).toBe(hundred.id);
    await report(customer.id, 4, 'change-2', changedAt + 120);
    await usageBecomes(customer.id, start, 7);

    const preview = await client.invoices.createPreview({ subscription: subscription.id });
    expect(usageLines(preview)).toEqual(
      [
        [fifty.id, 3, 150],
        [hundred.id, 4, 400],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(preview.amount_due).toBe(550);

    const periodEnd = monthAfter(start);
    await advance(clock.id, periodEnd + 2 * 3600);
    const [invoice] = await cycleInvoices(subscription.id);
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: 550 });
    expect(usageLines(invoice!)).toEqual(usageLines(preview));
    const old = invoice!.lines.data.find((line) => line.pricing?.price_details?.price === fifty.id)!;
    expect(old.period).toEqual({ start, end: changedAt });
    expect(old.parent?.subscription_item_details?.subscription_item).toBe(item.id);

    // Billed once: the next period's preview starts from nothing.
    const next = await client.invoices.createPreview({ subscription: subscription.id });
    expect(usageLines(next)).toEqual([[hundred.id, 0, 0]]);
  });

  it('Given usage of 5 on a metered item next to a licensed one, when the metered item is deleted mid-period, then the next invoice still bills the 5', async () => {
    const { start, clock, customer } = await onClock('Item deleted');
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: fifty.id }, { price: licensed.id }] });
    await report(customer.id, 5, 'deleted-1', start + 60);
    await usageBecomes(customer.id, start, 5);

    await advance(clock.id, nowSeconds() + 60);
    const metered = subscription.items.data.find((item) => item.price.id === fifty.id)!;
    await client.subscriptionItems.del(metered.id, { proration_behavior: 'none' });

    const preview = await client.invoices.createPreview({ subscription: subscription.id });
    expect(usageLines(preview)).toEqual([[fifty.id, 5, 250]]);

    await advance(clock.id, monthAfter(start) + 2 * 3600);
    const [invoice] = await cycleInvoices(subscription.id);
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: 1250 });
    expect(usageLines(invoice!)).toEqual([[fifty.id, 5, 250]]);
    expect(invoice!.lines.data.find((line) => line.pricing?.price_details?.price === fifty.id)?.parent?.subscription_item_details?.subscription_item).toBe(
      metered.id,
    );
  });
});
