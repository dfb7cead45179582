import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';

describe('subscription items, through the official SDK', () => {
  let client: Stripe;
  let key: string;
  let subscription: Stripe.Subscription;
  let seats: Stripe.Price;
  let support: Stripe.Price;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    const customer = await client.customers.create({ name: 'Items' });
    const product = await client.products.create({ name: 'Team plan' });
    seats = await client.prices.create({ product: product.id, unit_amount: 1000, currency: 'usd', recurring: { interval: 'month' } });
    support = await client.prices.create({ product: product.id, unit_amount: 500, currency: 'usd', recurring: { interval: 'month' } });
    subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: seats.id, quantity: 2 }] });
  });

  const updatedEvents = async () =>
    (await client.events.list({ type: 'customer.subscription.updated', limit: 100 })).data.filter(
      (event) => (event.data.object as Stripe.Subscription).id === subscription.id,
    );

  it('Given a subscription, when an item is created, retrieved, updated, listed and deleted, then each answers the subscription_item and the subscription follows', async () => {
    const created = await client.subscriptionItems.create({ subscription: subscription.id, price: support.id, quantity: 3, proration_behavior: 'none' });
    expect(created).toMatchObject({ object: 'subscription_item', subscription: subscription.id, quantity: 3, price: { id: support.id }, metadata: {} });
    expect(await client.subscriptionItems.retrieve(created.id)).toEqual(created);

    const updated = await client.subscriptionItems.update(created.id, {
      quantity: 4,
      metadata: { team: 'ops' },
      proration_behavior: 'none',
      payment_behavior: 'allow_incomplete',
    });
    expect(updated).toMatchObject({ id: created.id, quantity: 4, metadata: { team: 'ops' } });
    const onSubscription = await client.subscriptions.retrieve(subscription.id);
    expect(onSubscription.items.data.map((item) => [item.id, item.quantity])).toEqual([
      [subscription.items.data[0]!.id, 2],
      [created.id, 4],
    ]);

    const listed = await client.subscriptionItems.list({ subscription: subscription.id, limit: 1 });
    expect(listed).toMatchObject({ object: 'list', url: '/v1/subscription_items', has_more: true, data: [{ id: created.id }] });
    const all: string[] = [];
    for await (const item of client.subscriptionItems.list({ subscription: subscription.id, limit: 1 })) all.push(item.id);
    expect(all).toEqual([created.id, subscription.items.data[0]!.id]);

    expect(await client.subscriptionItems.del(created.id, { proration_behavior: 'none' })).toEqual({
      id: created.id,
      object: 'subscription_item',
      deleted: true,
    });
    await expect(client.subscriptionItems.retrieve(created.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect((await client.subscriptions.retrieve(subscription.id)).items.data).toHaveLength(1);
    expect(await updatedEvents()).toHaveLength(3);
  });

  it('Given items on a subscription update, when one is added and one changed, then both land in one update with one event', async () => {
    const before = (await updatedEvents()).length;
    const item = subscription.items.data[0]!;
    const updated = await client.subscriptions.update(subscription.id, {
      items: [{ id: item.id, quantity: 5 }, { price: support.id }],
      proration_behavior: 'none',
    });
    expect(updated.items.data.map((entry) => [entry.price.id, entry.quantity])).toEqual([
      [seats.id, 5],
      [support.id, 1],
    ]);
    const added = updated.items.data[1]!;
    expect(await client.subscriptionItems.retrieve(added.id)).toMatchObject({ id: added.id, subscription: subscription.id });
    const removed = await client.subscriptions.update(subscription.id, { items: [{ id: added.id, deleted: true }], proration_behavior: 'none' });
    expect(removed.items.data.map((entry) => entry.id)).toEqual([item.id]);
    expect(await updatedEvents()).toHaveLength(before + 2);
  });

  it('Given the wire form, when an unknown parameter, a missing subscription or the last item delete is sent, then each is a 400 naming it', async () => {
    const unknown = await api('POST', '/v1/subscription_items', {
      key,
      form: `subscription=${subscription.id}&price=${support.id}&proration_behavior=none&bogus=1`,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'invalid_request_error', param: 'bogus' });
    const missing = await api('GET', '/v1/subscription_items', { key });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ param: 'subscription' });
    const last = await api('DELETE', `/v1/subscription_items/${subscription.items.data[0]!.id}?proration_behavior=none`, { key });
    expect(last.status).toBe(400);
    expect(last.body.error.message).toContain('at least one item');
    const long = await api('GET', `/v1/subscription_items/si_${'x'.repeat(3000)}`, { key });
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
  });
});
