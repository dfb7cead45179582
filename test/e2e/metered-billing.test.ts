import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sdkError = (promise: Promise<unknown>) => promise.then(() => undefined).catch((error: unknown) => error as Stripe.errors.StripeError);

/** One month after `seconds` (UTC), as a monthly period counts it. */
const monthAfter = (seconds: number, months = 1) => {
  const date = new Date(seconds * 1000);
  date.setUTCMonth(date.getUTCMonth() + months);
  return Math.floor(date.getTime() / 1000);
};

/**
 * Usage-based billing on a test clock, as issue 32 asks for it: a sum meter behind a metered price of 50 per
 * unit, usage reported through the SDK, the preview showing the running amount mid-period, the renewal
 * billing it in arrears (recounted when the draft finalizes, so a cancellation in the draft's hour is taken
 * out), and the minimum charge carried to the customer's balance. The clock starts just before now: meter
 * event timestamps are checked against the stack's clock, and must fall in the subscription's period.
 */
describe('metered prices billed from meters, through the official SDK', () => {
  let client: Stripe;
  let publishable: Stripe;
  let clock: Stripe.TestHelpers.TestClock;
  let meter: Stripe.Billing.Meter;
  let product: Stripe.Product;
  let price: Stripe.Price;
  let customer: Stripe.Customer;
  let subscription: Stripe.Subscription;
  let small: { customer: Stripe.Customer; subscription: Stripe.Subscription };
  const start = nowSeconds() - 120;
  const periodEnd = monthAfter(start);

  const card = async () =>
    (await publishable.tokens.create({ card: { number: '4242424242424242', exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 4), cvc: '123' } }))
      .id;
  const report = (customerId: string, value: number, identifier: string) =>
    client.billing.meterEvents.create({
      event_name: 'api_calls',
      payload: { service_customer_id: customerId, value: String(value) },
      identifier,
      timestamp: nowSeconds() - 10,
    });
  /** The meter's usage of a customer since the clock's start, once it reads `wanted`. */
  const usageBecomes = (customerId: string, wanted: number) =>
    eventually(async () => {
      const summaries = await client.billing.meters.listEventSummaries(meter.id, {
        customer: customerId,
        start_time: Math.floor(start / 60) * 60,
        end_time: (Math.floor(nowSeconds() / 60) + 1) * 60,
      });
      return summaries.data[0]?.aggregated_value === wanted ? wanted : undefined;
    }, 30_000);
  const advanceTo = async (frozenTime: number) => {
    await client.testHelpers.testClocks.advance(clock.id, { frozen_time: frozenTime });
    clock = await eventually(async () => {
      const current = await client.testHelpers.testClocks.retrieve(clock.id);
      return current.status === 'ready' ? current : undefined;
    }, 120_000);
  };
  const cycleInvoices = async (subscriptionId: string) =>
    (await client.invoices.list({ subscription: subscriptionId, limit: 100 })).data
      .filter((invoice) => invoice.billing_reason === 'subscription_cycle')
      .sort((a, b) => a.created - b.created);

  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    publishable = sdk(platform.publishable_key);
    meter = await client.billing.meters.create({ display_name: 'API calls', event_name: 'api_calls', default_aggregation: { formula: 'sum' } });
    product = await client.products.create({ name: 'API' });
    clock = await client.testHelpers.testClocks.create({ frozen_time: start, name: 'Metered billing' });
    customer = await client.customers.create({ name: 'Metered', test_clock: clock.id, source: await card() });
  });

  it('Given an active sum meter, when a price is created with usage_type=metered and the meter, then it shows both', async () => {
    price = await client.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 50,
      recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
    });
    expect(price.recurring).toMatchObject({ interval: 'month', interval_count: 1, usage_type: 'metered', meter: meter.id });
    expect((await client.prices.retrieve(price.id)).recurring?.meter).toBe(meter.id);
  });

  it('Given no meter, another account’s meter, an inactive meter or a licensed price with a meter, when creating the price, then each is refused naming recurring[meter]', async () => {
    const recurring = (extra: Record<string, string>) => ({
      product: product.id,
      currency: 'usd',
      unit_amount: 50,
      recurring: { interval: 'month' as const, ...extra },
    });
    const missing = await sdkError(client.prices.create(recurring({ usage_type: 'metered' })));
    expect(missing).toMatchObject({ type: 'StripeInvalidRequestError', code: 'parameter_missing', param: 'recurring[meter]' });

    const other = sdk((await newPlatform()).secret_key);
    const foreign = await other.billing.meters.create({ display_name: 'Theirs', event_name: 'theirs', default_aggregation: { formula: 'sum' } });
    const unknown = await sdkError(client.prices.create(recurring({ usage_type: 'metered', meter: foreign.id })));
    expect(unknown).toMatchObject({ code: 'resource_missing', param: 'recurring[meter]' });

    const retired = await client.billing.meters.create({ display_name: 'Old', event_name: 'old_calls', default_aggregation: { formula: 'sum' } });
    await client.billing.meters.deactivate(retired.id);
    const inactive = await sdkError(client.prices.create(recurring({ usage_type: 'metered', meter: retired.id })));
    expect(inactive).toMatchObject({ code: 'parameter_invalid', param: 'recurring[meter]' });

    const licensed = await sdkError(client.prices.create(recurring({ meter: meter.id })));
    expect(licensed).toMatchObject({ code: 'parameter_invalid', param: 'recurring[meter]' });

    const legacy = await sdkError(client.prices.create(recurring({ usage_type: 'metered', meter: meter.id, aggregate_usage: 'sum' })));
    expect(legacy).toMatchObject({ type: 'StripeInvalidRequestError' });
    expect(legacy?.message).toContain('aggregate_usage');
  });

  it('Given the metered price, when subscribing with a quantity, then it is refused; without one, the item shows no quantity and the first invoice a zero line', async () => {
    const refused = await sdkError(client.subscriptions.create({ customer: customer.id, items: [{ price: price.id, quantity: 2 }] }));
    expect(refused).toMatchObject({ param: 'items[0][quantity]' });
    expect(refused?.message).toBe('Quantity should not be specified where usage_type is `metered`. Remove quantity from `items[0]`');

    subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], expand: ['latest_invoice'] });
    expect(subscription.status).toBe('active');
    expect(subscription.items.data[0]).not.toHaveProperty('quantity');
    const first = subscription.latest_invoice as Stripe.Invoice;
    expect(first).toMatchObject({ status: 'paid', total: 0, amount_due: 0, billing_reason: 'subscription_create' });
    expect(first.lines.data.map((line) => [line.quantity, line.amount])).toEqual([[0, 0]]);
  });

  it('Given usage of 3 and 4, when the subscription’s next invoice is previewed mid-period, then it shows a line of 7 at 350 for the current period', async () => {
    await report(customer.id, 3, 'usage-1');
    await report(customer.id, 4, 'usage-2');
    await usageBecomes(customer.id, 7);
    const preview = await client.invoices.createPreview({ subscription: subscription.id });
    expect(preview).toMatchObject({ amount_due: 350, total: 350, parent: { subscription_details: { subscription: subscription.id } } });
    expect(preview.lines.data).toHaveLength(1);
    expect(preview.lines.data[0]).toMatchObject({ quantity: 7, amount: 350, period: { start, end: periodEnd } });
    expect(preview.lines.data[0]!.pricing?.price_details?.price).toBe(price.id);
  });

  it('Given a small user with 3 units at 10 each, when subscribed on the same clock, then its first invoice is a zero line', async () => {
    const tenCents = await client.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 10,
      recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
    });
    const smallCustomer = await client.customers.create({ name: 'Small', test_clock: clock.id, source: await card() });
    small = { customer: smallCustomer, subscription: await client.subscriptions.create({ customer: smallCustomer.id, items: [{ price: tenCents.id }] }) };
    await report(smallCustomer.id, 3, 'small-1');
    await usageBecomes(smallCustomer.id, 3);
  });

  it('Given a third event of 5, when the period ends, then the draft bills 12; when the event is cancelled within the draft’s hour, then the invoice finalizes with 7 at 350, paid', async () => {
    await report(customer.id, 5, 'usage-3');
    await usageBecomes(customer.id, 12);
    await advanceTo(periodEnd + 60);
    const [draft] = await cycleInvoices(subscription.id);
    expect(draft).toMatchObject({ status: 'draft', billing_reason: 'subscription_cycle' });
    const usageLine = draft!.lines.data.find((line) => line.period.end === periodEnd)!;
    expect(usageLine).toMatchObject({ quantity: 12, amount: 600, period: { start, end: periodEnd } });

    await client.billing.meterEventAdjustments.create({ event_name: 'api_calls', type: 'cancel', cancel: { identifier: 'usage-3' } });
    await usageBecomes(customer.id, 7);
    await advanceTo(periodEnd + 2 * 3600);
    const [invoice] = await cycleInvoices(subscription.id);
    expect(invoice).toMatchObject({ id: draft!.id, status: 'paid', amount_paid: 350 });
    // Only the usage of the period that ended: a metered item bills nothing in advance.
    expect(invoice!.lines.data.map((line) => [line.quantity, line.amount, line.period.start, line.period.end])).toEqual([[7, 350, start, periodEnd]]);
    const line = invoice!.lines.data[0]!;
    expect(line.parent?.subscription_item_details).toMatchObject({ proration: false, subscription: subscription.id });
  });

  it('Given 30 cents of usage, when its invoice finalizes, then it is paid at zero and the 30 go to the customer’s balance, carried to the next invoice', async () => {
    const [invoice] = await cycleInvoices(small.subscription.id);
    expect(invoice).toMatchObject({ status: 'paid', total: 30, amount_due: 0, amount_paid: 0, starting_balance: 0, ending_balance: 30 });
    expect((await client.customers.retrieve(small.customer.id)) as Stripe.Customer).toMatchObject({ balance: 30 });

    await client.invoiceItems.create({ customer: small.customer.id, subscription: small.subscription.id, amount: 100, currency: 'usd' });
    await advanceTo(monthAfter(start, 2) + 2 * 3600);
    const next = (await cycleInvoices(small.subscription.id))[1]!;
    expect(next).toMatchObject({ status: 'paid', total: 100, starting_balance: 30, amount_due: 130, amount_paid: 130, ending_balance: 0 });
    expect((await client.customers.retrieve(small.customer.id)) as Stripe.Customer).toMatchObject({ balance: 0 });
  });

  it('Given usage of 4 on a second clock, when the subscription is cancelled at once with invoice_now, then a final invoice bills the usage so far, paid', async () => {
    const second = await client.testHelpers.testClocks.create({ frozen_time: nowSeconds() - 120, name: 'Final usage' });
    const buyer = await client.customers.create({ name: 'Leaving now', test_clock: second.id, source: await card() });
    const made = await client.subscriptions.create({ customer: buyer.id, items: [{ price: price.id }] });
    await report(buyer.id, 4, 'leaving-1');
    await usageBecomes(buyer.id, 4);
    // The clock's time passes the event's (a frozen clock has not reached it yet: nothing of it would be billed).
    const until = nowSeconds() + 60;
    await client.testHelpers.testClocks.advance(second.id, { frozen_time: until });
    await eventually(async () => ((await client.testHelpers.testClocks.retrieve(second.id)).status === 'ready' ? true : undefined), 120_000);
    const canceled = await client.subscriptions.cancel(made.id, { invoice_now: true });
    expect(canceled.status).toBe('canceled');
    const finals = (await client.invoices.list({ subscription: made.id, limit: 10 })).data.filter((invoice) => invoice.billing_reason === 'subscription_cycle');
    expect(finals).toHaveLength(1);
    expect(finals[0]).toMatchObject({ status: 'paid', amount_paid: 200 });
    expect(finals[0]!.lines.data.map((line) => [line.quantity, line.amount, line.period.start, line.period.end])).toEqual([[4, 200, made.start_date, until]]);
  });

  it('Given usage of 2 and cancel_at_period_end, when the period ends, then the subscription ends with a final invoice of that usage, paid', async () => {
    const third = await client.testHelpers.testClocks.create({ frozen_time: nowSeconds() - 120, name: 'Period end' });
    const buyer = await client.customers.create({ name: 'Leaving later', test_clock: third.id, source: await card() });
    const made = await client.subscriptions.create({ customer: buyer.id, items: [{ price: price.id }], cancel_at_period_end: true });
    await report(buyer.id, 2, 'later-1');
    await usageBecomes(buyer.id, 2);
    const end = made.items.data[0]!.current_period_end;
    await client.testHelpers.testClocks.advance(third.id, { frozen_time: end + 2 * 3600 });
    await eventually(async () => ((await client.testHelpers.testClocks.retrieve(third.id)).status === 'ready' ? true : undefined), 120_000);
    expect(await client.subscriptions.retrieve(made.id)).toMatchObject({ status: 'canceled', ended_at: end });
    const [final] = await cycleInvoices(made.id);
    expect(final).toMatchObject({ status: 'paid', amount_paid: 100 });
    expect(final!.lines.data.map((line) => [line.quantity, line.amount, line.period.end])).toEqual([[2, 100, end]]);
  });
});
