import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

describe('products, prices and subscriptions with migration to flexible billing, through the official SDK', () => {
  let client: Stripe;
  let key: string;
  let receiver: WebhookReceiver;
  let customer: Stripe.Customer;
  let monthly: Stripe.Price;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    receiver = await startWebhookReceiver();
    customer = await client.customers.create({ name: 'Subscriber' });
    const product = await client.products.create({ name: 'Pro plan', metadata: { tier: 'pro' } });
    monthly = await client.prices.create({ product: product.id, unit_amount: 1500, currency: 'USD', recurring: { interval: 'month' } });
  });
  afterAll(() => receiver.stop());

  it('creates and reads products and prices', async () => {
    expect(monthly).toMatchObject({
      object: 'price',
      currency: 'usd',
      unit_amount: 1500,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
    });
    // The SDK turns decimal strings into Decimal objects.
    expect(String(monthly.unit_amount_decimal)).toBe('1500');
    const product = await client.products.retrieve(monthly.product as string);
    expect(product).toMatchObject({ object: 'product', name: 'Pro plan', active: true, metadata: { tier: 'pro' }, default_price: null });
    const oneTime = await client.prices.create({
      product_data: { name: 'Setup fee' },
      unit_amount_decimal: '250.5' as unknown as Stripe.Decimal,
      currency: 'eur',
    });
    expect(oneTime).toMatchObject({ type: 'one_time', recurring: null, unit_amount: null });
    expect(String(oneTime.unit_amount_decimal)).toBe('250.5');
    expect(await client.products.retrieve(oneTime.product as string)).toMatchObject({ name: 'Setup fee' });
    const recurring = await client.prices.list({ type: 'recurring' });
    expect(recurring.data.map((price) => price.id)).toContain(monthly.id);
    expect(recurring.data.map((price) => price.id)).not.toContain(oneTime.id);
    expect((await client.products.list({ limit: 1 })).data).toHaveLength(1);
    await expect(client.prices.create({ product: 'prod_missing', unit_amount: 1, currency: 'usd' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'product',
    });
    await expect(client.prices.create({ product: product.id, currency: 'usd' })).rejects.toMatchObject({ statusCode: 400, param: 'unit_amount' });
    await expect(client.prices.retrieve('price_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('creates a classic subscription with every top-level field, then migrates it once to flexible', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['customer.subscription.updated'] });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id, quantity: 2 }], metadata: { seats: '2' } });
    expect(subscription).toMatchObject({
      object: 'subscription',
      status: 'active',
      customer: customer.id,
      currency: 'usd',
      billing_mode: 'classic',
      billing_mode_details: null,
      cancel_at_period_end: false,
      collection_method: 'charge_automatically',
      livemode: false,
      metadata: { seats: '2' },
      invoice_settings: { issuer: { type: 'self' } },
      items: { object: 'list', has_more: false, total_count: 1, url: `/v1/subscription_items?subscription=${subscription.id}` },
    });
    for (const field of [
      'application',
      'application_fee_percent',
      'billing_thresholds',
      'cancel_at',
      'canceled_at',
      'days_until_due',
      'default_payment_method',
      'default_source',
      'description',
      'ended_at',
      'latest_invoice',
      'next_pending_invoice_item_invoice',
      'on_behalf_of',
      'pause_collection',
      'payment_settings',
      'pending_invoice_item_interval',
      'pending_setup_intent',
      'pending_update',
      'schedule',
      'test_clock',
      'transfer_data',
      'trial_end',
      'trial_start',
    ]) {
      expect(subscription, field).toHaveProperty(field, null);
    }
    expect(subscription.trial_settings).toEqual({ end_behavior: { missing_payment_method: 'create_invoice' } });
    const [item] = subscription.items.data;
    expect(item).toMatchObject({
      object: 'subscription_item',
      quantity: 2,
      price: { id: monthly.id },
      plan: { id: monthly.id, interval: 'month' },
      subscription: subscription.id,
    });
    expect(item!.current_period_end - item!.current_period_start).toBeGreaterThanOrEqual(28 * 86400);

    const migrated = await client.subscriptions.migrate(subscription.id, { billing_mode: { type: 'flexible', flexible: { proration_discounts: 'itemized' } } });
    expect(migrated).toMatchObject({
      id: subscription.id,
      billing_mode: 'flexible',
      billing_mode_details: { updated_at: expect.any(Number), flexible: { proration_discounts: 'itemized' } },
    });
    expect(Math.abs((migrated as any).billing_mode_details.updated_at - Date.now() / 1000)).toBeLessThan(60);
    await expect(client.subscriptions.migrate(subscription.id, { billing_mode: { type: 'flexible' } })).rejects.toMatchObject({
      statusCode: 400,
      code: 'subscription_billing_mode_already_flexible',
    });
    await expect(client.subscriptions.migrate('sub_missing', { billing_mode: { type: 'flexible' } })).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });

    const [delivered] = await receiver.waitFor(1);
    const event = client.webhooks.constructEvent(delivered!.body, delivered!.headers['service-signature'] as string, endpoint.secret!);
    expect(event).toMatchObject({
      type: 'customer.subscription.updated',
      data: { object: { id: subscription.id, billing_mode: 'flexible' }, previous_attributes: { billing_mode: 'classic', billing_mode_details: null } },
    });
  });

  it('renders billing_mode as an object when Service-Version names 2025-08-27 or later', async () => {
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }], billing_mode: { type: 'flexible' } });
    const newer = await api('GET', `/v1/subscriptions/${subscription.id}`, { key, headers: { 'service-version': '2025-09-30.clover' } });
    expect(newer.body.billing_mode).toEqual({ type: 'flexible', flexible: { proration_discounts: 'included' }, updated_at: subscription.created });
    expect(newer.body).not.toHaveProperty('billing_mode_details');
    const older = await api('GET', `/v1/subscriptions/${subscription.id}`, { key, headers: { 'service-version': '2025-06-30.basil' } });
    expect(older.body).toMatchObject({ billing_mode: 'flexible', billing_mode_details: { updated_at: subscription.created } });
  });

  it('updates, lists, cancels, and refuses what does not fit', async () => {
    const yearly = await client.prices.create({ product: monthly.product as string, unit_amount: 15000, currency: 'usd', recurring: { interval: 'year' } });
    await expect(client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }, { price: yearly.id }] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'items[1]',
    });
    const mixed = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price: monthly.id }, { price: yearly.id }],
      billing_mode: { type: 'flexible' },
    });
    expect(mixed.items.data).toHaveLength(2);
    const inline = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price_data: { currency: 'usd', product: monthly.product as string, recurring: { interval: 'week', interval_count: 2 }, unit_amount: 700 } }],
    });
    expect(inline.items.data[0]!.price).toMatchObject({ unit_amount: 700, recurring: { interval: 'week', interval_count: 2 }, active: false });

    const updated = await client.subscriptions.update(inline.id, { cancel_at_period_end: true, metadata: { note: 'x' } });
    expect(updated).toMatchObject({ cancel_at_period_end: true, metadata: { note: 'x' } });
    const canceled = await client.subscriptions.cancel(inline.id, { cancellation_details: { comment: 'too many', feedback: 'too_expensive' } });
    expect(canceled).toMatchObject({
      status: 'canceled',
      canceled_at: expect.any(Number),
      ended_at: expect.any(Number),
      cancellation_details: { comment: 'too many', feedback: 'too_expensive', reason: 'cancellation_requested' },
    });
    await expect(client.subscriptions.migrate(inline.id, { billing_mode: { type: 'flexible' } })).rejects.toMatchObject({
      statusCode: 400,
      code: 'subscription_canceled',
    });

    const active = await client.subscriptions.list({ customer: customer.id });
    expect(active.data.map((subscription) => subscription.id)).toContain(mixed.id);
    expect(active.data.map((subscription) => subscription.id)).not.toContain(inline.id);
    const all = await client.subscriptions.list({ customer: customer.id, status: 'all' });
    expect(all.data.map((subscription) => subscription.id)).toContain(inline.id);

    await expect(client.subscriptions.create({ items: [{ price: monthly.id }] })).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_missing',
      param: 'customer',
    });
    await expect(client.subscriptions.create({ customer: 'cus_missing', items: [{ price: monthly.id }] })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'customer',
    });
    await expect(client.subscriptions.create({ customer: customer.id, items: [{ price: 'price_nope' }] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'items[0][price]',
    });
    const migrateBadType = await api('POST', `/v1/subscriptions/${mixed.id}/migrate`, { key, form: 'billing_mode[type]=classic' });
    expect(migrateBadType.status).toBe(400);
    expect(migrateBadType.body.error.param).toBe('billing_mode[type]');
    const migrateMissing = await api('POST', `/v1/subscriptions/${mixed.id}/migrate`, { key, form: '' });
    expect(migrateMissing.status).toBe(400);
    expect(migrateMissing.body.error.param).toBe('billing_mode');
  });
});
