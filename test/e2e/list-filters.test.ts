import { beforeAll, describe, expect, it, vi } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';

/** Until the clock has left the second `created` (Unix seconds) names. */
const pastSecondOf = (created: number) => vi.waitUntil(() => Date.now() >= (created + 1) * 1000, { timeout: 3_000, interval: 10 });

describe('the list filters the reference has on our lists (email, created), through the official SDK and raw queries', () => {
  let client: Stripe;
  let key: string;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
  });

  const ids = (objects: Array<{ id: string }>) => objects.map((object) => object.id);

  it('finds customers by their exact, case-sensitive email, newest first, page by page, for find-or-create flows', async () => {
    // Given customers with the same email, one differing in case, one with none
    const first = await client.customers.create({ email: 'find@example.test', name: 'First' });
    const upper = await client.customers.create({ email: 'Find@example.test' });
    const second = await client.customers.create({ email: 'find@example.test', name: 'Second' });
    await client.customers.create({ name: 'No email' });

    // When listed by email, one per page, through the SDK's auto-pagination
    const found = await client.customers.list({ email: 'find@example.test', limit: 1 }).autoPagingToArray({ limit: 10 });

    // Then exactly the two with that email, newest first
    expect(ids(found)).toEqual([second.id, first.id]);
    expect(ids((await client.customers.list({ email: 'Find@example.test' })).data)).toEqual([upper.id]);
    expect((await client.customers.list({ email: 'nobody@example.test' })).data).toEqual([]);
    // ending_before walks back up the same filtered list
    expect(ids((await client.customers.list({ email: 'find@example.test', ending_before: first.id })).data)).toEqual([second.id]);

    // When an email changes or is cleared, the customer moves with it
    await client.customers.update(first.id, { email: 'moved@example.test' });
    await client.customers.update(second.id, { email: '' });
    expect((await client.customers.list({ email: 'find@example.test' })).data).toEqual([]);
    expect(ids((await client.customers.list({ email: 'moved@example.test' })).data)).toEqual([first.id]);
  });

  it('filters customers, products, prices, subscriptions and events by creation time, as a number or a range', async () => {
    // Given objects made in two different seconds
    const product = await client.products.create({ name: 'Early' });
    const earlyPrice = await client.prices.create({ product: product.id, unit_amount: 100, currency: 'usd', recurring: { interval: 'month' } });
    const early = await client.customers.create({ name: 'Early' });
    const earlySub = await client.subscriptions.create({ customer: early.id, items: [{ price: earlyPrice.id }] });
    await pastSecondOf(Math.max(product.created, earlyPrice.created, early.created, earlySub.created));
    const late = await client.customers.create({ name: 'Late', email: 'late@example.test' });
    const lateProduct = await client.products.create({ name: 'Late' });
    const latePrice = await client.prices.create({ product: lateProduct.id, unit_amount: 200, currency: 'usd', recurring: { interval: 'month' } });
    const lateSub = await client.subscriptions.create({ customer: late.id, items: [{ price: latePrice.id }] });
    expect(late.created).toBeGreaterThan(early.created);

    // When each list is asked for the later second only, or everything before it
    const since = { gte: late.created };
    const before = { lt: late.created };

    // Then each answers only what was made in its window
    expect(ids((await client.customers.list({ created: since })).data)).toEqual([late.id]);
    expect(ids((await client.customers.list({ created: before })).data)).toContain(early.id);
    expect(ids((await client.customers.list({ created: before })).data)).not.toContain(late.id);
    expect(ids((await client.customers.list({ created: early.created })).data)).toContain(early.id);
    expect(ids((await client.customers.list({ created: early.created })).data)).not.toContain(late.id);
    expect(ids((await client.customers.list({ email: 'late@example.test', created: before })).data)).toEqual([]);
    expect(ids((await client.customers.list({ email: 'late@example.test', created: since })).data)).toEqual([late.id]);
    expect(ids((await client.products.list({ created: since })).data)).toEqual([lateProduct.id]);
    expect(ids((await client.products.list({ created: { lte: early.created } })).data)).toEqual([product.id]);
    expect(ids((await client.prices.list({ created: since })).data)).toEqual([latePrice.id]);
    expect(ids((await client.prices.list({ created: { gt: early.created } })).data)).toEqual([latePrice.id]);
    expect(ids((await client.subscriptions.list({ created: since })).data)).toEqual([lateSub.id]);
    expect(ids((await client.subscriptions.list({ created: before })).data)).toEqual([earlySub.id]);
    const lateEvents = await client.events.list({ created: since, type: 'customer.created' });
    expect(lateEvents.data.map((event) => (event.data.object as { id: string }).id)).toEqual([late.id]);
    // An empty window answers an empty page, not an error
    expect((await client.customers.list({ created: { gt: late.created, lt: early.created } })).data).toEqual([]);
    // Auto-pagination stays inside the window
    const paged = await client.customers.list({ created: { gte: early.created }, limit: 1 }).autoPagingToArray({ limit: 20 });
    expect(ids(paged)).toEqual(expect.arrayContaining([late.id, early.id]));
    expect(paged.every((customer) => customer.created >= early.created)).toBe(true);
  });

  it('takes the wire forms the SDKs send, and answers a 400 naming the parameter for anything forged', async () => {
    const customer = await client.customers.create({ email: 'wire+tag@example.test' });
    const get = (query: string) => api('GET', `/v1/customers?${query}`, { key });

    expect((await get(`created[gte]=${customer.created}&created[lte]=${customer.created}`)).body.data.map((found: { id: string }) => found.id)).toContain(
      customer.id,
    );
    expect((await get(`created=${customer.created}`)).body.data.map((found: { id: string }) => found.id)).toContain(customer.id);
    expect((await get(`email=${encodeURIComponent('wire+tag@example.test')}`)).body.data.map((found: { id: string }) => found.id)).toEqual([customer.id]);
    expect((await api('GET', `/v1/products?created[gt]=0`, { key })).status).toBe(200);
    expect((await api('GET', `/v1/subscriptions?created=0`, { key })).body.data).toEqual([]);

    for (const forged of [
      'created[gte]=99999999999999999999',
      `created=${'9'.repeat(3000)}`,
      'created=-1',
      'created=yesterday',
      'created[after]=1',
      'created[gte][nested]=1',
      `email=${'a'.repeat(3000)}`,
      'email[]=a@example.test',
    ]) {
      const answer = await get(forged);
      expect(answer.status, forged).toBe(400);
      expect(answer.body.error, forged).toMatchObject({ type: 'invalid_request_error' });
      expect(String(answer.body.error.param), forged).toMatch(/^(created|email)/);
    }
    expect((await api('GET', '/v1/prices?created[lt]=abc', { key })).status).toBe(400);
    expect((await api('GET', '/v1/events?created[gt]=1e3', { key })).status).toBe(400);
    expect((await get(`test_clock=clock_${'x'.repeat(300)}`)).body.error).toMatchObject({ param: 'test_clock' });
  });
});
