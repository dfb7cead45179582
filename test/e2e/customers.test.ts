import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

describe('v1 customers through the official SDK', () => {
  let client: Stripe;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    client = sdk((await newPlatform()).secret_key);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  it('creates, retrieves, updates, lists and deletes customers', async () => {
    const created = await client.customers.create({
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      description: 'first',
      metadata: { plan: 'pro' },
      address: { city: 'London', country: 'GB' },
      preferred_locales: ['en'],
    });
    expect(created).toMatchObject({
      object: 'customer',
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      balance: 0,
      livemode: false,
      metadata: { plan: 'pro' },
      address: { city: 'London', country: 'GB', line1: null },
      shipping: null,
      tax_exempt: 'none',
    });
    expect(created.id).toMatch(/^cus_/);
    expect(created.invoice_prefix).toMatch(/^[A-Z0-9]{8}$/);

    const updated = await client.customers.update(created.id, { email: '', metadata: { plan: '', seats: '3' }, name: 'Ada' });
    expect(updated).toMatchObject({ email: null, metadata: { seats: '3' }, name: 'Ada' });
    expect(await client.customers.retrieve(created.id)).toMatchObject({ name: 'Ada' });

    const second = await client.customers.create({ name: 'Grace' });
    const listed = await client.customers.list({ limit: 1 }).autoPagingToArray({ limit: 10 });
    expect(listed.map((customer) => customer.id)).toEqual([second.id, created.id]);

    expect(await client.customers.del(created.id)).toMatchObject({ id: created.id, object: 'customer', deleted: true });
    await expect(client.customers.del(created.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('refuses malformed fields with a 400 naming them', async () => {
    await expect(client.customers.create({ email: 'not-an-email' })).rejects.toMatchObject({ statusCode: 400, param: 'email' });
    await expect(client.customers.create({ address: { country: 'Britain' } })).rejects.toMatchObject({ statusCode: 400, param: 'address[country]' });
    await expect(client.customers.create({ payment_method: 'pm_1' })).rejects.toMatchObject({ statusCode: 400, param: 'payment_method' });
  });

  it('emits customer.created to v1 endpoints and v1.customer.created to thin destinations', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?v1`, enabled_events: ['customer.created', 'customer.updated'] });
    await client.v2.core.eventDestinations.create({
      name: 'thin customers',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v1.customer.created'],
      webhook_endpoint: { url: `${receiver.url}?thin` },
    });

    const customer = await client.customers.create({ name: 'Evented' });

    const requests = await receiver.waitFor(2);
    const snapshot = requests.find((request) => request.path === '/hook?v1')!;
    const thin = requests.find((request) => request.path === '/hook?thin')!;
    const event = client.webhooks.constructEvent(snapshot.body, snapshot.headers['service-signature'] as string, endpoint.secret!);
    expect(event).toMatchObject({ type: 'customer.created', data: { object: { id: customer.id, name: 'Evented' } } });
    expect(JSON.parse(thin.body)).toMatchObject({
      type: 'v1.customer.created',
      related_object: { id: customer.id, type: 'customer', url: `/v1/customers/${customer.id}` },
    });
    const fetched = await client.v2.core.events.retrieve(JSON.parse(thin.body).id);
    expect(fetched).toMatchObject({ snapshot_event: event.id });
  });
});
