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
    // A card to charge: a new subscription collecting automatically is paid on creation (`active`), or `incomplete`.
    customer = await client.customers.create({ name: 'Subscriber', source: 'tok_visa' });
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
      // The SDK sends its own version (Stripe-Version: 2026-10-28.endive), which renders billing_mode as its types expect.
      billing_mode: { type: 'classic', flexible: null },
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
    expect(subscription.latest_invoice).toMatch(/^in_/);
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
    expect(subscription).not.toHaveProperty('billing_mode_details');
    expect(migrated).toMatchObject({
      id: subscription.id,
      billing_mode: { type: 'flexible', flexible: { proration_discounts: 'itemized' }, updated_at: expect.any(Number) },
    });
    expect(Math.abs(migrated.billing_mode.updated_at! - Date.now() / 1000)).toBeLessThan(60);
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
      api_version: '2026-10-28.endive',
      data: {
        object: { id: subscription.id, billing_mode: { type: 'flexible', flexible: { proration_discounts: 'itemized' } } },
        previous_attributes: { billing_mode: { type: 'classic', flexible: null } },
      },
    });
  });

  it('renders billing_mode as an object from 2025-06-30.basil on, and as the spec shows it (a string) before', async () => {
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }], billing_mode: { type: 'flexible' } });
    const newer = await api('GET', `/v1/subscriptions/${subscription.id}`, { key, headers: { 'service-version': '2025-06-30.basil' } });
    expect(newer.body.billing_mode).toEqual({ type: 'flexible', flexible: { proration_discounts: 'included' }, updated_at: subscription.created });
    expect(newer.body).not.toHaveProperty('billing_mode_details');
    const older = await api('GET', `/v1/subscriptions/${subscription.id}`, { key, headers: { 'service-version': '2025-05-28.basil' } });
    expect(older.headers.get('service-version')).toBe('2025-05-28.basil');
    expect(older.body).toMatchObject({ billing_mode: 'flexible', billing_mode_details: { updated_at: subscription.created } });
  });

  it('renders a request naming no version at the default version, 2025-05-28.basil, and says so', async () => {
    const created = await api('POST', '/v1/subscriptions', { key, form: `customer=${customer.id}&items[0][price]=${monthly.id}&billing_mode[type]=flexible` });
    expect(created.status).toBe(200);
    expect(created.headers.get('service-version')).toBe('2025-05-28.basil');
    expect(created.body).toMatchObject({
      billing_mode: 'flexible',
      billing_mode_details: { updated_at: created.body.created, flexible: { proration_discounts: 'included' } },
    });
    const viaSdk = await client.subscriptions.retrieve(created.body.id);
    expect(viaSdk.lastResponse.headers['service-version']).toBe('2026-10-28.endive');
    expect(viaSdk.billing_mode).toEqual({ type: 'flexible', flexible: { proration_discounts: 'included' }, updated_at: created.body.created });
    // Service-Version wins over the SDK's header when both are sent.
    const both = await api('GET', `/v1/subscriptions/${created.body.id}`, {
      key,
      headers: { 'service-version': '2025-05-28.basil', 'stripe-version': '2026-10-28.endive' },
    });
    expect(both.body.billing_mode).toBe('flexible');
  });

  it('gives an SDK pinned to 2022-11-15 the subscription-level period, and one pinned to a newer version the item-level one', async () => {
    // Given a subscription with a monthly item, made through the current SDK
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }] });
    const item = subscription.items.data[0]!;

    // When an integration pinned to 2022-11-15 (as stripe-python 5.0.0 integrations are) reads it
    const pinned = sdk(key, { apiVersion: '2022-11-15' as Stripe.LatestApiVersion });
    const old = (await pinned.subscriptions.retrieve(subscription.id)) as unknown as Record<string, any>;

    // Then it has current_period_start/end on the subscription, and the rest of the pre-basil shape
    expect(old.lastResponse.headers['service-version']).toBe('2022-11-15');
    expect(old).toMatchObject({
      current_period_start: item.current_period_start,
      current_period_end: item.current_period_end,
      discount: null,
      billing_mode: 'classic',
    });
    expect(old.items.data[0]).not.toHaveProperty('current_period_end');
    expect(old.items.data[0].price.recurring).toMatchObject({ aggregate_usage: null, interval: 'month' });
    expect(old.items.data[0].plan).toMatchObject({ aggregate_usage: null });
    const listed = (await pinned.subscriptions.list({ customer: customer.id })).data.find((found) => found.id === subscription.id) as unknown as Record<
      string,
      any
    >;
    expect(listed.current_period_end).toBe(item.current_period_end);
    const canceled = (await pinned.subscriptions.cancel(subscription.id)) as unknown as Record<string, any>;
    expect(canceled).toMatchObject({ status: 'canceled', current_period_end: item.current_period_end });

    // And the product its price belongs to shows `features`, as before 2024-04-10
    const product = (await pinned.products.retrieve(monthly.product as string)) as unknown as Record<string, any>;
    expect(product).toMatchObject({ features: [] });
    expect(product).not.toHaveProperty('marketing_features');

    // And a newer version has the period on the items only
    const newer = await sdk(key, { apiVersion: '2025-03-31.basil' as Stripe.LatestApiVersion }).subscriptions.retrieve(subscription.id);
    expect(newer).not.toHaveProperty('current_period_end');
    expect(newer).not.toHaveProperty('discount');
    expect(newer.items.data[0]).toMatchObject({ current_period_end: item.current_period_end });
    expect(newer.items.data[0]!.price.recurring).not.toHaveProperty('aggregate_usage');
  });

  it('refuses a version the reference does not know, in the header and as a pinned version', async () => {
    for (const version of ['yesterday', '2022-11-16', '2025-09-30.acacia', '2099-01-01.future']) {
      const bad = await api('GET', `/v1/subscriptions?customer=${customer.id}`, { key, headers: { 'stripe-version': version } });
      expect(bad.status, version).toBe(400);
      expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', message: `Invalid Service API version: ${version}` });
    }
    const viaHeader = await api('GET', '/v1/customers', { key, headers: { 'service-version': '2020-08-28' } });
    expect(viaHeader.body.error.message).toBe('Invalid Service API version: 2020-08-28');
    await expect(sdk(key, { apiVersion: '2024-13-01' as Stripe.LatestApiVersion }).customers.list()).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      message: 'Invalid Service API version: 2024-13-01',
    });
    await expect(
      client.webhookEndpoints.create({
        url: receiver.url,
        enabled_events: ['*'],
        api_version: '2026-11-25.endive' as Stripe.WebhookEndpointCreateParams.ApiVersion,
      }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'api_version' });
    await expect(
      client.v2.core.eventDestinations.create({
        name: 'unknown version',
        type: 'webhook_endpoint',
        event_payload: 'snapshot',
        snapshot_api_version: '2025-03-31',
        enabled_events: ['customer.created'],
        webhook_endpoint: { url: receiver.url },
      }),
    ).rejects.toMatchObject({ statusCode: 400 });
  });

  it('delivers snapshot events rendered at the version each endpoint and destination is pinned to, and GET /v1/events at the one the caller names', async () => {
    const platform = await newPlatform();
    const owner = sdk(platform.secret_key);
    const hooks = await startWebhookReceiver();
    const endpoint = (name: string, api_version?: Stripe.WebhookEndpointCreateParams.ApiVersion) =>
      owner.webhookEndpoints.create({
        url: `${hooks.url}/${name}`,
        enabled_events: ['customer.subscription.updated'],
        ...(api_version ? { api_version } : {}),
      });
    await endpoint('older', '2022-11-15');
    await endpoint('newer', '2026-10-28.endive');
    await endpoint('unpinned');
    const destination = await owner.v2.core.eventDestinations.create({
      name: 'pinned old',
      type: 'webhook_endpoint',
      event_payload: 'snapshot',
      snapshot_api_version: '2025-05-28.basil',
      enabled_events: ['customer.subscription.updated'],
      webhook_endpoint: { url: `${hooks.url}/destination` },
    });
    expect(destination.snapshot_api_version).toBe('2025-05-28.basil');
    const buyer = await owner.customers.create({ name: 'Pinned' });
    const product = await owner.products.create({ name: 'Pinned plan' });
    const price = await owner.prices.create({ product: product.id, unit_amount: 100, currency: 'usd', recurring: { interval: 'month' } });
    // A request naming no version sees the default version's strings; its event is rendered at a version and says which.
    const created = await api('POST', '/v1/subscriptions', { key: platform.secret_key, form: `customer=${buyer.id}&items[0][price]=${price.id}` });
    const migrated = await api('POST', `/v1/subscriptions/${created.body.id}/migrate`, { key: platform.secret_key, form: 'billing_mode[type]=flexible' });
    expect(migrated.body.billing_mode).toBe('flexible');
    const updatedAt = migrated.body.billing_mode_details.updated_at;
    const period = migrated.body.items.data[0];
    const received = new Map((await hooks.waitFor(4)).map((request) => [request.path.split('/').pop(), JSON.parse(request.body)]));
    await hooks.stop();
    const stringData = {
      object: { billing_mode: 'flexible', billing_mode_details: { updated_at: updatedAt, flexible: { proration_discounts: 'included' } } },
      previous_attributes: { billing_mode: 'classic', billing_mode_details: null },
    };
    const objectData = {
      object: { billing_mode: { type: 'flexible', flexible: { proration_discounts: 'included' }, updated_at: updatedAt } },
      previous_attributes: { billing_mode: { type: 'classic', flexible: null } },
    };
    // The endpoint pinned to 2022-11-15 receives the pre-basil shape: periods on the subscription, none on items.
    const older = received.get('older');
    expect(older).toMatchObject({ api_version: '2022-11-15', data: stringData });
    expect(older.data.object).toMatchObject({
      current_period_start: period.current_period_start,
      current_period_end: period.current_period_end,
      discount: null,
    });
    expect(older.data.object.items.data[0]).not.toHaveProperty('current_period_end');
    expect(older.data.object.items.data[0].plan).toMatchObject({ aggregate_usage: null });
    expect(received.get('destination')).toMatchObject({ api_version: '2025-05-28.basil', data: stringData });
    expect(received.get('destination').data.object).not.toHaveProperty('current_period_end');
    expect(received.get('newer')).toMatchObject({ api_version: '2026-10-28.endive', data: objectData });
    expect(received.get('newer').data.object).not.toHaveProperty('billing_mode_details');
    // Unpinned: at the version of the request that caused it (the default, as it named none).
    expect(received.get('unpinned')).toMatchObject({ api_version: '2025-05-28.basil', data: stringData });

    const eventId = older.id;
    const recorded = await api('GET', `/v1/events/${eventId}`, { key: platform.secret_key });
    expect(recorded.body).toMatchObject({ api_version: '2025-05-28.basil', data: stringData });
    const viaSdk = await owner.events.retrieve(eventId);
    expect(viaSdk).toMatchObject({ api_version: '2026-10-28.endive', data: objectData });
    const atOlder = await api('GET', `/v1/events?type=customer.subscription.updated`, {
      key: platform.secret_key,
      headers: { 'service-version': '2022-11-15' },
    });
    expect(atOlder.headers.get('service-version')).toBe('2022-11-15');
    expect(atOlder.body.data[0]).toMatchObject({ id: eventId, api_version: '2022-11-15', data: stringData });
    expect(atOlder.body.data[0].data.object.current_period_end).toBe(period.current_period_end);
  });

  it('Given a subscription paid on creation, when its next invoice is previewed, then it is the next period at the price, with the pending items; a subscription ending at its period end has none', async () => {
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id, quantity: 2 }] });
    expect(subscription.status).toBe('active');
    const [item] = subscription.items.data;
    await client.invoiceItems.create({ customer: customer.id, amount: 125, currency: 'usd', description: 'Add-on' });

    const preview = await client.invoices.createPreview({ customer: customer.id, subscription: subscription.id });
    expect(preview).toMatchObject({ object: 'invoice', customer: customer.id, total: 3125, amount_due: 3125, billing_reason: 'upcoming' });
    const renewal = preview.lines.data.find((line) => line.amount === 3000)!;
    expect(renewal.period.start).toBe(item!.current_period_end);
    expect(renewal.period.end).toBeGreaterThan(item!.current_period_end);

    await client.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    await expect(client.invoices.createPreview({ customer: customer.id, subscription: subscription.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'invoice_upcoming_none',
    });
    await expect(client.invoices.createPreview({ customer: customer.id, subscription: 'sub_missing' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'subscription',
    });
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
