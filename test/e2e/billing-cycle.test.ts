import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const day = 86_400;
const year = new Date().getUTCFullYear();

/**
 * The whole billing cycle on a test clock, as issue 31 asks for it: a monthly subscription paid on
 * creation, renewed twice by advancing the clock, a pending invoice item joining the next invoice, a card
 * that fails a renewal (past_due) and its replacement paying the retry (active), cancel_at_period_end ending
 * it, and a trial starting at zero; every webhook received and verified with the SDK's constructEvent.
 */
describe('the billing cycle on a test clock, through the official SDK', () => {
  let client: Stripe;
  let publishable: Stripe;
  let receiver: WebhookReceiver;
  let secret: string;
  let clock: Stripe.TestHelpers.TestClock;
  let customer: Stripe.Customer;
  let price: Stripe.Price;
  let subscription: Stripe.Subscription;
  const start = Math.floor(Date.UTC(year + 1, 0, 15, 12) / 1000);

  const card = async (number: string) => (await publishable.tokens.create({ card: { number, exp_month: '12', exp_year: String(year + 4), cvc: '123' } })).id;
  /** Every snapshot event delivered so far, each verified with the endpoint's secret. */
  const delivered = () =>
    receiver.received.map((request) => client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, secret));
  const deliveredOf = (type: string, objectId: string) =>
    delivered().filter((event) => event.type === type && (event.data.object as { id?: string }).id === objectId);
  const advanceTo = async (frozenTime: number) => {
    const advancing = await client.testHelpers.testClocks.advance(clock.id, { frozen_time: frozenTime });
    expect(advancing.status).toBe('advancing');
    clock = await eventually(async () => {
      const current = await client.testHelpers.testClocks.retrieve(clock.id);
      return current.status === 'ready' ? current : undefined;
    }, 120_000);
    expect(clock.frozen_time).toBe(frozenTime);
  };
  const invoicesOf = async (subscriptionId: string) =>
    (await client.invoices.list({ subscription: subscriptionId, limit: 100 })).data.sort((a, b) => a.period_end - b.period_end || a.created - b.created);

  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    publishable = sdk(platform.publishable_key);
    receiver = await startWebhookReceiver();
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['*'] });
    secret = endpoint.secret!;
    clock = await client.testHelpers.testClocks.create({ frozen_time: start, name: 'Billing cycle' });
    customer = await client.customers.create({ name: 'Cycle', test_clock: clock.id, source: await card('4242424242424242') });
    const product = await client.products.create({ name: 'Monthly plan' });
    price = await client.prices.create({ product: product.id, unit_amount: 2000, currency: 'usd', recurring: { interval: 'month' } });
  });
  afterAll(() => receiver?.stop());

  it('Given a customer with a card on a test clock, when subscribed monthly, then the first invoice is paid on creation at the clock’s time', async () => {
    subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], expand: ['latest_invoice'] });
    expect(subscription).toMatchObject({ status: 'active', test_clock: clock.id, start_date: start, billing_cycle_anchor: start });
    const invoice = subscription.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: 2000, amount_due: 2000, billing_reason: 'subscription_create', customer: customer.id });
    await eventually(async () => (deliveredOf('invoice.paid', invoice.id!).length === 1 ? true : undefined));
  });

  it('Given the subscription, when the clock passes two renewals, then each makes one invoice for the next period, paid', async () => {
    const second = Math.floor(Date.UTC(year + 1, 1, 15, 12) / 1000);
    await advanceTo(second + 2 * 3600);
    await advanceTo(Math.floor(Date.UTC(year + 1, 2, 15, 12) / 1000) + 2 * 3600);
    const invoices = await invoicesOf(subscription.id);
    expect(invoices.map((invoice) => [invoice.billing_reason, invoice.status, invoice.amount_paid])).toEqual([
      ['subscription_create', 'paid', 2000],
      ['subscription_cycle', 'paid', 2000],
      ['subscription_cycle', 'paid', 2000],
    ]);
    expect(invoices[1]!.lines.data[0]!.period).toEqual({ start: second, end: Math.floor(Date.UTC(year + 1, 2, 15, 12) / 1000) });
    const renewed = await client.subscriptions.retrieve(subscription.id);
    expect(renewed.items.data[0]!.current_period_start).toBe(Math.floor(Date.UTC(year + 1, 2, 15, 12) / 1000));
    await eventually(async () => (invoices.slice(1).every((invoice) => deliveredOf('invoice.paid', invoice.id!).length === 1) ? true : undefined));
    expect(delivered().filter((event) => event.type === 'invoice.upcoming')).toHaveLength(2);
  });

  it('Given a pending invoice item and a card that fails to charge, when the next renewal comes, then the item joins its invoice, the payment fails and the subscription is past_due', async () => {
    const item = await client.invoiceItems.create({ customer: customer.id, amount: 500, currency: 'usd', description: 'Setup fee' });
    const failing = await client.customers.createSource(customer.id, { source: await card('4000000000000341') });
    await client.customers.update(customer.id, { default_source: failing.id });
    await advanceTo(Math.floor(Date.UTC(year + 1, 3, 15, 12) / 1000) + 2 * 3600);
    const invoice = (await invoicesOf(subscription.id)).at(-1)!;
    expect(invoice).toMatchObject({ status: 'open', total: 2500, amount_remaining: 2500, attempt_count: 1 });
    expect(invoice.lines.data.map((line) => line.amount).sort()).toEqual([2000, 500]);
    expect((await client.invoiceItems.retrieve(item.id)).invoice).toBe(invoice.id);
    expect((await client.subscriptions.retrieve(subscription.id)).status).toBe('past_due');
    await eventually(async () => (deliveredOf('invoice.payment_failed', invoice.id!).length === 1 ? true : undefined));
  });

  it('Given the card replaced, when the retry comes, then the invoice is paid and the subscription active again', async () => {
    const replacing = await client.customers.createSource(customer.id, { source: await card('4242424242424242') });
    await client.customers.update(customer.id, { default_source: replacing.id });
    const open = (await invoicesOf(subscription.id)).at(-1)!;
    expect(open.next_payment_attempt).toBeGreaterThan(clock.frozen_time);
    await advanceTo(open.next_payment_attempt! + 60);
    expect(await client.invoices.retrieve(open.id!)).toMatchObject({ status: 'paid', amount_paid: 2500, attempt_count: 2 });
    expect((await client.subscriptions.retrieve(subscription.id)).status).toBe('active');
  });

  it('Given cancel_at_period_end, when the period ends, then the subscription is canceled there and no invoice follows', async () => {
    const marked = await client.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    const end = marked.items.data[0]!.current_period_end;
    const before = (await invoicesOf(subscription.id)).length;
    await advanceTo(end + 3600);
    expect(await client.subscriptions.retrieve(subscription.id)).toMatchObject({ status: 'canceled', ended_at: end });
    expect(await invoicesOf(subscription.id)).toHaveLength(before);
    await eventually(async () => (deliveredOf('customer.subscription.deleted', subscription.id).length === 1 ? true : undefined));
  });

  it('Given a trial, when subscribed, then it is trialing with a zero invoice paid at once', async () => {
    const trialing = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_period_days: 7,
      expand: ['latest_invoice'],
    });
    expect(trialing).toMatchObject({ status: 'trialing', trial_start: clock.frozen_time, trial_end: clock.frozen_time + 7 * day });
    expect(trialing.latest_invoice).toMatchObject({ status: 'paid', total: 0, amount_due: 0 });
  });
});
