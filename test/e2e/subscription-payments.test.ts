import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';

/** The first invoice of a subscription and its payment, as the reference's `payment_behavior` decides, through the official SDK. */
describe('a subscription paid on creation: payment_behavior, declines, trials and sent invoices', () => {
  let client: Stripe;
  let price: Stripe.Price;
  const customerWith = (source?: string) => client.customers.create({ name: 'Payer', ...(source ? { source } : {}) });
  const latestInvoice = (subscription: Stripe.Subscription) => subscription.latest_invoice as Stripe.Invoice;

  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    price = await client.prices.create({ product_data: { name: 'Plan' }, unit_amount: 1800, currency: 'usd', recurring: { interval: 'month' } });
  });

  it('Given a card that charges, when subscribed, then it is active with its first invoice paid', async () => {
    const customer = await customerWith('tok_visa');
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], expand: ['latest_invoice'] });
    expect(subscription.status).toBe('active');
    expect(latestInvoice(subscription)).toMatchObject({ status: 'paid', amount_paid: 1800, attempt_count: 1, billing_reason: 'subscription_create' });
  });

  it('Given a card that fails every charge, when subscribed with allow_incomplete (the default), then it is incomplete, and paying after a new card makes it active', async () => {
    const customer = await customerWith('tok_chargeCustomerFail');
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], expand: ['latest_invoice'] });
    expect(subscription.status).toBe('incomplete');
    const invoice = latestInvoice(subscription);
    // The first invoice is not retried on the schedule: it waits for a payment within the 23 hours.
    expect(invoice).toMatchObject({ status: 'open', attempt_count: 1, next_payment_attempt: null });

    await client.customers.update(customer.id, { source: 'tok_visa' });
    expect(await client.invoices.pay(invoice.id!)).toMatchObject({ status: 'paid', amount_paid: 1800 });
    expect(await client.subscriptions.retrieve(subscription.id)).toMatchObject({ status: 'active' });
  });

  it('Given a card that fails, when subscribed with error_if_incomplete, then it is the 402 card error and nothing is written', async () => {
    const customer = await customerWith('tok_chargeCustomerFail');
    await expect(
      client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], payment_behavior: 'error_if_incomplete' }),
    ).rejects.toMatchObject({ statusCode: 402, type: 'StripeCardError', code: 'card_declined', decline_code: 'generic_decline' });
    expect((await client.subscriptions.list({ customer: customer.id, status: 'all' })).data).toEqual([]);
    expect((await client.invoices.list({ customer: customer.id })).data).toEqual([]);
  });

  it('Given default_incomplete, when subscribed, then it is incomplete with its first invoice open and no charge tried', async () => {
    const customer = await customerWith('tok_visa');
    const subscription = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'default_incomplete',
      expand: ['latest_invoice'],
    });
    expect(subscription.status).toBe('incomplete');
    expect(latestInvoice(subscription)).toMatchObject({ status: 'open', attempt_count: 0, amount_due: 1800, amount_paid: 0 });
  });

  it('Given no payment source, when subscribed, then it is incomplete, the invoice naming the missing payment method', async () => {
    const customer = await customerWith();
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], expand: ['latest_invoice'] });
    expect(subscription.status).toBe('incomplete');
    expect(latestInvoice(subscription)).toMatchObject({ status: 'open', last_payment_error: { code: 'missing_payment_method' } });
  });

  it('Given a trial, when subscribed without a card, then it is trialing with a zero invoice paid at once', async () => {
    const customer = await customerWith();
    const subscription = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_period_days: 14,
      expand: ['latest_invoice'],
    });
    expect(subscription).toMatchObject({ status: 'trialing', trial_end: subscription.trial_start! + 14 * 86_400 });
    expect(latestInvoice(subscription)).toMatchObject({ status: 'paid', total: 0, amount_paid: 0 });
  });

  it('Given send_invoice, when subscribed, then it is active with its first invoice open until its due date', async () => {
    const customer = await customerWith();
    const subscription = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      collection_method: 'send_invoice',
      days_until_due: 30,
      expand: ['latest_invoice'],
    });
    expect(subscription.status).toBe('active');
    const invoice = latestInvoice(subscription);
    expect(invoice).toMatchObject({ status: 'open', collection_method: 'send_invoice', attempt_count: 0 });
    expect(invoice.due_date! - invoice.status_transitions.finalized_at!).toBe(30 * 86_400);
  });
});
