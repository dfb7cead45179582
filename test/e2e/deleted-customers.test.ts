import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';

describe('deleted customers, and what the reference does with deleted objects, through the official SDK', () => {
  let client: Stripe;
  let key: string;
  let monthly: Stripe.Price;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    const product = await client.products.create({ name: 'Deletion plan' });
    monthly = await client.prices.create({ product: product.id, unit_amount: 900, currency: 'usd', recurring: { interval: 'month' } });
  });

  const eventsOf = async (type: string, objectId: string) =>
    (await client.events.list({ type, limit: 100 }).autoPagingToArray({ limit: 1000 })).filter(
      (event) => (event.data.object as { id: string }).id === objectId,
    );

  it('keeps a deleted customer retrievable in its deleted form, out of lists, and 404 for everything else', async () => {
    // Given a customer with a card, found by its email
    const token = await client.tokens.create({ card: { number: '4242424242424242', exp_month: '8', exp_year: '2031', cvc: '123' } } as never);
    const customer = await client.customers.create({ email: 'gone@example.test', name: 'Gone', source: token.id });
    expect((await client.customers.list({ email: 'gone@example.test' })).data.map((found) => found.id)).toEqual([customer.id]);

    // When it is deleted
    expect(await client.customers.del(customer.id)).toEqual({ id: customer.id, object: 'customer', deleted: true });

    // Then retrieve answers the deleted form (the SDK's DeletedCustomer), even when asked to expand
    const found = await client.customers.retrieve(customer.id, { expand: ['default_source', 'sources'] });
    expect(found).toEqual({ id: customer.id, object: 'customer', deleted: true });
    expect(found.deleted).toBe(true);
    // It is in no list, by email or not
    expect((await client.customers.list({ limit: 100 })).data.map((listed) => listed.id)).not.toContain(customer.id);
    expect((await client.customers.list({ email: 'gone@example.test' })).data).toEqual([]);
    // Every other operation answers as for a customer that does not exist, a second delete included
    const missing = { statusCode: 404, code: 'resource_missing', message: `No such customer: '${customer.id}'` };
    await expect(client.customers.update(customer.id, { name: 'Back' })).rejects.toMatchObject(missing);
    await expect(client.customers.del(customer.id)).rejects.toMatchObject(missing);
    await expect(client.customers.listSources(customer.id)).rejects.toMatchObject(missing);
    const another = await client.tokens.create({ card: { number: '4242424242424242', exp_month: '8', exp_year: '2031', cvc: '123' } } as never);
    await expect(client.customers.createSource(customer.id, { source: another.id })).rejects.toMatchObject(missing);
    await expect(client.customers.retrieveSource(customer.id, customer.default_source as string)).rejects.toMatchObject(missing);
    await expect(client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }] })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'customer',
    });
    // Another platform, or the other mode, finds nothing at all
    await expect(sdk((await newPlatform()).secret_key).customers.retrieve(customer.id)).rejects.toMatchObject({ statusCode: 404 });
    // customer.deleted carries the customer as it was
    expect(await eventsOf('customer.deleted', customer.id)).toMatchObject([{ data: { object: { id: customer.id, email: 'gone@example.test' } } }]);
  });

  it('cancels the subscriptions of a deleted customer, each with customer.subscription.deleted, before customer.deleted', async () => {
    // Given a customer with two subscriptions, one of them already canceled
    const customer = await client.customers.create({ name: 'Subscriber' });
    const active = await client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }] });
    const second = await client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id, quantity: 2 }] });
    const canceledBefore = await client.subscriptions.cancel(second.id);

    // When the customer is deleted
    await client.customers.del(customer.id);

    // Then the active subscription is canceled now, still retrievable, and the one canceled before is unchanged
    const canceled = await client.subscriptions.retrieve(active.id);
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_details: { reason: 'cancellation_requested' } });
    expect(canceled.canceled_at).toBeGreaterThanOrEqual(active.created);
    expect(canceled.ended_at).toBe(canceled.canceled_at);
    expect(await client.subscriptions.retrieve(second.id)).toMatchObject({ status: 'canceled', canceled_at: canceledBefore.canceled_at });
    expect((await client.subscriptions.list({ customer: customer.id, status: 'all' })).data.map((sub) => sub.status)).toEqual(['canceled', 'canceled']);
    // One customer.subscription.deleted per subscription, and the subscription's came before the customer's
    const [subscriptionDeleted] = await eventsOf('customer.subscription.deleted', active.id);
    const [customerDeleted] = await eventsOf('customer.deleted', customer.id);
    expect(subscriptionDeleted).toMatchObject({ data: { object: { id: active.id, status: 'canceled', customer: customer.id } } });
    expect(await eventsOf('customer.subscription.deleted', second.id)).toHaveLength(1);
    expect(subscriptionDeleted!.id < customerDeleted!.id).toBe(true);
  });

  it('leaves no active subscription behind when subscriptions are created while their customer is deleted', async () => {
    // Given a customer
    const customer = await client.customers.create({ name: 'Racing' });
    // When subscriptions are created for it while it is deleted
    const creates = Array.from({ length: 6 }, () => client.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }] }));
    const [deleted, ...made] = await Promise.allSettled([client.customers.del(customer.id), ...creates]);
    // Then the delete succeeded, each create either succeeded or was refused as for a missing customer, and none is left active
    expect(deleted.status).toBe('fulfilled');
    for (const outcome of made) {
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'customer' });
    }
    const left = await client.subscriptions.list({ customer: customer.id, status: 'all', limit: 100 });
    expect(left.data.map((subscription) => subscription.status).filter((status) => status !== 'canceled')).toEqual([]);
    expect(left.data).toHaveLength(made.filter((outcome) => outcome.status === 'fulfilled').length);
  });

  it('answers a deleted customer over raw HTTP exactly in the reference deleted shape', async () => {
    const customer = await client.customers.create({ name: 'Raw' });
    await api('DELETE', `/v1/customers/${customer.id}`, { key });
    const answer = await api('GET', `/v1/customers/${customer.id}`, { key });
    expect(answer).toMatchObject({ status: 200, body: { id: customer.id, object: 'customer', deleted: true } });
    expect(Object.keys(answer.body).sort()).toEqual(['deleted', 'id', 'object']);
    expect((await api('POST', `/v1/customers/${customer.id}`, { key, form: 'name=x' })).status).toBe(404);
  });

  it('treats the other deleted objects as the reference does: products 404 once deleted, prices are archived not deleted', async () => {
    // A deleted product is gone (the SDK's products.retrieve returns Product only, never a deleted form)
    const product = await client.products.create({ name: 'Short-lived' });
    await client.products.del(product.id);
    await expect(client.products.retrieve(product.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    await expect(client.products.del(product.id)).rejects.toMatchObject({ statusCode: 404 });
    // A price has no delete (the SDK has no prices.del): archiving is an update, and the price stays retrievable
    expect((await api('DELETE', `/v1/prices/${monthly.id}`, { key })).status).toBe(405);
    const archived = await client.prices.update(monthly.id, { active: false });
    expect(await client.prices.retrieve(monthly.id)).toMatchObject({ id: monthly.id, active: false });
    await client.prices.update(archived.id, { active: true });
  });
});
