import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';

const search = (key: string, path: string, params: Record<string, string>) => api('GET', `${path}?${new URLSearchParams(params)}`, { key });

describe('searching customers through the official SDK', () => {
  let key: string;
  let client: Stripe;
  let made: Stripe.Customer[];
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    made = [];
    // One at a time: ids (and so the search order) follow creation.
    for (let i = 0; i < 12; i++) {
      made.push(
        await client.customers.create({
          name: `Customer ${i}`,
          email: `user${i}@${i % 3 === 0 ? 'rocket.io' : 'example.com'}`,
          metadata: { tier: i % 2 ? 'gold' : 'silver', index: String(i) },
        }),
      );
    }
  });

  const ids = (customers: Array<{ id: string }>) => customers.map((customer) => customer.id);
  const newestFirst = (pick: (i: number) => boolean) => ids(made.filter((_, i) => pick(i)).reverse());

  it('finds a customer by exact email and answers the reference’s search_result shape', async () => {
    const result = await client.customers.search({ query: `email:'user4@example.com'` });
    expect(result).toMatchObject({ object: 'search_result', url: '/v1/customers/search', has_more: false, next_page: null });
    expect(ids(result.data)).toEqual([made[4]!.id]);
    expect(result.data[0]).toEqual(await client.customers.retrieve(made[4]!.id));
    expect(result).not.toHaveProperty('total_count');
  });

  it('matches substrings, metadata, negation and OR, newest first', async () => {
    expect(ids((await client.customers.search({ query: `email~"rocket" AND metadata['tier']:'silver'` })).data)).toEqual(newestFirst((i) => i % 6 === 0));
    expect(ids((await client.customers.search({ query: `-metadata['tier']:'gold' -email~'rocket'` })).data)).toEqual(
      newestFirst((i) => i % 2 === 0 && i % 3 !== 0),
    );
    expect(ids((await client.customers.search({ query: `name:'Customer 1' OR name:'Customer 11' or email:'user2@example.com'` })).data)).toEqual(
      newestFirst((i) => i === 1 || i === 11 || i === 2),
    );
    expect(ids((await client.customers.search({ query: 'phone:null metadata["index"]:"7"' })).data)).toEqual([made[7]!.id]);
  });

  it('pages through next_page with auto-pagination, the query and limit sent again with each page', async () => {
    const first = await client.customers.search({ query: `metadata['tier']:'gold' OR metadata['tier']:'silver'`, limit: 5 });
    expect(first.data).toHaveLength(5);
    expect(first.has_more).toBe(true);
    expect(first.next_page).toEqual(expect.any(String));
    const all = await client.customers.search({ query: `metadata['tier']:'gold' OR metadata['tier']:'silver'`, limit: 5 }).autoPagingToArray({ limit: 100 });
    expect(ids(all)).toEqual(newestFirst(() => true));
    const gold: string[] = [];
    for await (const customer of client.customers.search({ query: `metadata['tier']:'gold'`, limit: 2 })) gold.push(customer.id);
    expect(gold).toEqual(newestFirst((i) => i % 2 === 1));
  });

  it('narrows by created, in Unix seconds', async () => {
    const { created } = made[5]!;
    const inWindow = newestFirst((i) => made[i]!.created >= created && made[i]!.created <= created);
    expect(ids((await client.customers.search({ query: `created>=${created} AND created<=${created}`, limit: 100 })).data)).toEqual(inWindow);
    expect((await client.customers.search({ query: `created>${made[11]!.created}` })).data).toEqual([]);
    expect(ids((await client.customers.search({ query: `created<${made[0]!.created + 1}`, limit: 100 })).data)).toEqual(
      newestFirst((i) => made[i]!.created === made[0]!.created),
    );
  });

  it('leaves out deleted customers', async () => {
    const gone = await client.customers.create({ email: 'gone@rocket.io' });
    expect(ids((await client.customers.search({ query: `email:'gone@rocket.io'` })).data)).toEqual([gone.id]);
    await client.customers.del(gone.id);
    expect((await client.customers.search({ query: `email:'gone@rocket.io'` })).data).toEqual([]);
  });

  it('answers a bad query with a 400 that points at the offending part', async () => {
    await expect(client.customers.search({ query: `email:'a' AND name:'b' OR phone:'c'` })).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      param: 'query',
      message: expect.stringMatching(/^Invalid search query at character 24 \('OR'\): AND and OR cannot be combined/),
    });
    const raw = await search(key, '/v1/customers/search', { query: `emial:'a@b.io'` });
    expect(raw.status).toBe(400);
    expect(raw.body.error).toMatchObject({
      type: 'invalid_request_error',
      param: 'query',
      message: `Invalid search query at character 1 ('emial:'a@b.io''): emial is not a query field of customers; use created, email, metadata['key'], name or phone.`,
    });
    expect((await search(key, '/v1/customers/search', { query: `name:Jane` })).body.error.message).toBe(
      `Invalid search query at character 6 ('Jane'): expected a quoted value, a number or null.`,
    );
    expect((await search(key, '/v1/customers/search', {})).body.error).toMatchObject({ type: 'invalid_request_error', param: 'query' });
    expect((await search(key, '/v1/customers/search', { query: `name:'a'`, starting_after: 'cus_1' })).body.error).toMatchObject({ param: 'starting_after' });
  });

  it('answers a 3,000-character query with a 400 naming what is too long, and a longer one too', async () => {
    const long = await search(key, '/v1/customers/search', { query: `name:'${'a'.repeat(2_992)}'` });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ param: 'query', message: expect.stringMatching(/^Invalid search query at character 6 .*at most 1000 characters/) });
    const longer = await search(key, '/v1/customers/search', { query: `name:'a' ${'x'.repeat(5_000)}` });
    expect(longer.body.error).toMatchObject({ param: 'query', message: 'The search query is 5009 characters long; at most 4096 are accepted.' });
  });

  it('refuses a forged or altered page token, one of another query, and another tenant’s', async () => {
    const query = `metadata['tier']:'gold'`;
    const { next_page: page } = (await search(key, '/v1/customers/search', { query, limit: '1' })).body;
    expect(page).toEqual(expect.any(String));
    expect((await search(key, '/v1/customers/search', { query, limit: '1', page })).status).toBe(200);
    const [payload, mac] = (page as string).split('.');
    const forged = Buffer.from(JSON.stringify({ params: {}, cursor: `${made[11]!.id}~` })).toString('base64url');
    for (const bad of [`${forged}.${mac}`, `${payload}.${mac!.slice(0, -2)}AA`, 'garbage', 'a'.repeat(5_000)]) {
      const refused = await search(key, '/v1/customers/search', { query, page: bad });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_page_token', param: 'page' });
    }
    expect((await search(key, '/v1/customers/search', { query: `metadata['tier']:'silver'`, page })).body.error).toMatchObject({ param: 'page' });
    expect((await search(key, '/v1/products/search', { query: `name:'x'`, page })).body.error).toMatchObject({ param: 'page' });
    const other = (await newPlatform()).secret_key;
    const foreign = await search(other, '/v1/customers/search', { query, page });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'invalid_page_token', param: 'page' });
    // The other tenant's own search finds none of these customers.
    expect((await search(other, '/v1/customers/search', { query })).body.data).toEqual([]);
  });

  it('routes /v1/customers/search to search, never to a customer named "search"', async () => {
    expect((await search(key, '/v1/customers/search', { query: `name:'Customer 3'` })).body).toMatchObject({
      object: 'search_result',
      data: [{ id: made[3]!.id }],
    });
    expect((await api('POST', '/v1/customers/search', { key, form: 'name=x' })).status).not.toBe(200);
  });
});

describe('searching products, prices and subscriptions through the official SDK', () => {
  let client: Stripe;
  beforeAll(async () => {
    client = sdk((await newPlatform()).secret_key);
  });

  it('searches products by name, description, url, shippable and active, archived ones included', async () => {
    const gold = await client.products.create({ name: 'Gold plan', description: 'The best', url: 'https://shop.example/gold', shippable: false });
    const box = await client.products.create({ name: 'Gift box', shippable: true, metadata: { sku: 'BOX-1' } });
    const old = await client.products.create({ name: 'Old plan', active: false });
    expect((await client.products.search({ query: `name~'plan'` })).data.map((product) => product.id)).toEqual([old.id, gold.id]);
    expect((await client.products.search({ query: `active:'false'` })).data).toEqual([expect.objectContaining({ id: old.id, active: false })]);
    expect((await client.products.search({ query: `shippable:'true' AND metadata['sku']:'box-1'` })).data.map((product) => product.id)).toEqual([box.id]);
    expect((await client.products.search({ query: `url~'shop.example' description:'the best'` })).data.map((product) => product.id)).toEqual([gold.id]);
    expect((await client.products.search({ query: `-description:null` })).data.map((product) => product.id)).toEqual([gold.id]);
    await expect(client.products.search({ query: `status:'active'` })).rejects.toMatchObject({ statusCode: 400, param: 'query' });
  });

  it('searches prices by product, currency, type, lookup_key and metadata, with the list’s expansions', async () => {
    const product = await client.products.create({ name: 'Seats' });
    const monthly = await client.prices.create({
      product: product.id,
      currency: 'eur',
      unit_amount: 900,
      recurring: { interval: 'month' },
      lookup_key: 'seats_monthly',
      metadata: { plan: 'team' },
    });
    const once = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 5000 });
    expect((await client.prices.search({ query: `product:'${product.id}'` })).data.map((price) => price.id)).toEqual([once.id, monthly.id]);
    const [found] = (await client.prices.search({ query: `currency:'EUR' AND type:'recurring' AND lookup_key~'month'`, expand: ['data.product'] })).data;
    expect(found).toMatchObject({ id: monthly.id, product: { id: product.id, name: 'Seats' } });
    expect((await client.prices.search({ query: `metadata['plan']:'team' OR type:'one_time'` })).data.map((price) => price.id)).toEqual([once.id, monthly.id]);
    await expect(client.prices.search({ query: `currency~'eur'` })).rejects.toMatchObject({ statusCode: 400, param: 'query' });
  });

  it('searches subscriptions by status and metadata, canceled ones included', async () => {
    const customer = await client.customers.create({ name: 'Subscriber' });
    const price = await client.prices.create({ product_data: { name: 'Plan' }, currency: 'usd', unit_amount: 1000, recurring: { interval: 'month' } });
    const kept = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], metadata: { account: 'a-1' } });
    const ended = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], metadata: { account: 'a-2' } });
    await client.subscriptions.cancel(ended.id);
    expect((await client.subscriptions.search({ query: `status:'canceled'` })).data.map((subscription) => subscription.id)).toEqual([ended.id]);
    const [active] = (await client.subscriptions.search({ query: `-status:'canceled' AND metadata['account']:'a-1'` })).data;
    expect(active).toEqual(await client.subscriptions.retrieve(kept.id));
    const all = await client.subscriptions
      .search({ query: `metadata['account']:'a-1' OR metadata['account']:'a-2'`, limit: 1 })
      .autoPagingToArray({ limit: 10 });
    expect(all.map((subscription) => subscription.id)).toEqual([ended.id, kept.id]);
  });
});

describe('the search rate limit', () => {
  it('answers searches beyond the account’s limit (10 a second in live mode on the test stack; 20 by default, as the reference) with 429 rate_limit, lists unaffected', async () => {
    const live = await newPlatform({ livemode: true });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => search(live.secret_key, i % 2 ? '/v1/customers/search' : '/v1/prices/search', { query: `created>0` })),
    );
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
    expect(limited[0]!.headers.get('retry-after')).toBe('1');
    expect(limited[0]!.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit' });
    // Searches count against the account's search limit, not the key's own: a list goes through.
    expect((await api('GET', '/v1/customers', { key: live.secret_key })).status).toBe(200);
  });
});
