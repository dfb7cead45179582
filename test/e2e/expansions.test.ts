import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { subscription as subscriptionKeys } from '#shared/data/keys.ts';
import { issueApiKeys } from '#shared/platform/platform-service.ts';
import { api, newPlatform, platformStore, sdk, stackTable } from '../support/stack.ts';

const year = String(new Date().getUTCFullYear() + 2);

describe('expand[]: every expansion the reference allows on our objects, through the official SDK', () => {
  let account: string;
  let secretKey: string;
  let client: Stripe;
  let publishable: Stripe;
  let customer: Stripe.Customer;
  let product: Stripe.Product;
  let price: Stripe.Price;
  let subscription: Stripe.Subscription;
  beforeAll(async () => {
    const platform = await newPlatform();
    account = platform.account;
    secretKey = platform.secret_key;
    client = sdk(secretKey);
    publishable = sdk(platform.publishable_key);
    const token = await publishable.tokens.create({ card: { number: '4242424242424242', exp_month: '8', exp_year: year, cvc: '123', name: 'Ada' } });
    customer = await client.customers.create({ name: 'Ada', email: 'ada@example.test', source: token.id });
    const made = await client.products.create({ name: 'Pro' });
    price = await client.prices.create({ product: made.id, currency: 'usd', unit_amount: 1500, recurring: { interval: 'month' } });
    product = await client.products.update(made.id, { default_price: price.id });
    subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id, quantity: 2 }] });
  });

  it('expands product.default_price, and its product in turn', async () => {
    const expanded = await client.products.retrieve(product.id, { expand: ['default_price'] });
    // (The SDK makes Decimals of unit_amount_decimal on a price it was asked for, not on an expanded one.)
    const { unit_amount_decimal, ...fields } = await client.prices.retrieve(price.id);
    expect(expanded.default_price).toEqual({ ...fields, unit_amount_decimal: String(unit_amount_decimal) });
    const nested = await client.products.retrieve(product.id, { expand: ['default_price.product'] });
    expect((nested.default_price as Stripe.Price).product).toEqual(await client.products.retrieve(product.id));
    // And on the writes that answer a product
    expect((await client.products.update(product.id, { metadata: { a: '1' }, expand: ['default_price'] })).default_price).toMatchObject({ id: price.id });
  });

  it('expands data.default_price and data.default_price.product on every product of a page', async () => {
    const other = await client.products.create({ name: 'Without a price' });
    const page = await client.products.list({ limit: 2, expand: ['data.default_price.product'] });
    expect(page.data.map((item) => item.id)).toEqual([other.id, product.id]);
    expect(page.data[0]!.default_price).toBeNull();
    expect(page.data[1]!.default_price).toMatchObject({ id: price.id, object: 'price', product: { id: product.id, object: 'product', name: 'Pro' } });
    // The list form of a path is needed on a list, as the reference hints
    await expect(client.products.list({ expand: ['default_price'] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'expand[0]',
      message: "Invalid expand[0]: This property cannot be expanded (default_price). You may want to try expanding 'data.default_price' instead.",
    });
  });

  it('expands subscription.customer, the customer’s default source, and items.data.price.product on retrieve, list and writes', async () => {
    const retrieved = await client.subscriptions.retrieve(subscription.id, { expand: ['customer.default_source', 'items.data.price.product'] });
    expect(retrieved.customer).toMatchObject({
      id: customer.id,
      object: 'customer',
      email: 'ada@example.test',
      default_source: { id: customer.default_source, object: 'card' },
    });
    expect(retrieved.items.data[0]!.price.product).toEqual(await client.products.retrieve(product.id));
    // Everything else is as without expansion
    const plain = await client.subscriptions.retrieve(subscription.id);
    expect({ ...retrieved, customer: customer.id, items: plain.items }).toEqual(plain);

    const listed = await client.subscriptions.list({ customer: customer.id, expand: ['data.customer', 'data.items.data.price'] }).catch((error) => error);
    // data.items.data.price names an embedded object, which is no expansion
    expect(listed).toMatchObject({ statusCode: 400, message: 'Invalid expand[1]: This property cannot be expanded (data.items.data.price).' });
    const page = await client.subscriptions.list({ customer: customer.id, expand: ['data.customer'] });
    expect(page.data.map((item) => (item.customer as Stripe.Customer).id)).toEqual([customer.id]);
    // The list form of items.data.price.product is five levels, which the reference refuses
    await expect(client.subscriptions.list({ expand: ['data.items.data.price.product'] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'expand[0]',
      message: 'Invalid expand[0]: You cannot expand more than 4 levels of a property.',
    });
    const updated = await client.subscriptions.update(subscription.id, { metadata: { seats: '2' }, expand: ['customer', 'items.data.plan.product'] });
    expect(updated.customer).toMatchObject({ id: customer.id, object: 'customer' });
    expect((updated.items.data[0]!.plan.product as Stripe.Product).id).toBe(product.id);
  });

  it('renders the customer of a subscription whose customer was deleted in the reference’s deleted form', async () => {
    const leaving = await client.customers.create({ name: 'Leaving' });
    const kept = await client.subscriptions.create({ customer: leaving.id, items: [{ price: price.id }] });
    await client.customers.del(leaving.id);
    const retrieved = await client.subscriptions.retrieve(kept.id, { expand: ['customer'] });
    expect(retrieved.customer).toEqual({ id: leaving.id, object: 'customer', deleted: true });
  });

  it('expands data.default_source on a page of customers, and a source’s customer', async () => {
    const page = await client.customers.list({ limit: 100, expand: ['data.default_source'] });
    const listed = page.data.find((item) => item.id === customer.id)!;
    expect(listed.default_source).toMatchObject({ id: customer.default_source, object: 'card', customer: customer.id, last4: '4242' });
    expect(listed).not.toHaveProperty('sources');
    const card = (await client.customers.retrieveSource(customer.id, customer.default_source as string, { expand: ['customer'] })) as Stripe.Card;
    expect(card.customer).toMatchObject({ id: customer.id, object: 'customer', name: 'Ada' });
    const sources = await client.customers.listSources(customer.id, { expand: ['data.customer'] });
    expect((sources.data[0] as Stripe.Card).customer).toMatchObject({ id: customer.id });
    // `sources` is the customer's own: not on a list's customers (one query each)
    await expect(client.customers.list({ expand: ['data.sources'] })).rejects.toMatchObject({ statusCode: 400, param: 'expand[0]' });
  });

  it('expands price.product and currency_options on a page of prices', async () => {
    const page = await client.prices.list({ product: product.id, expand: ['data.product', 'data.currency_options'] });
    expect(page.data[0]).toMatchObject({
      id: price.id,
      product: { id: product.id, default_price: price.id },
      currency_options: { usd: { unit_amount: 1500 } },
    });
    expect((await client.prices.retrieve(price.id, { expand: ['product.default_price'] })).product).toMatchObject({ default_price: { id: price.id } });
  });

  it('expands data.* on search results as on lists, on each of the four searches', async () => {
    // When each search is asked for what its list expands
    const products = await client.products.search({ query: `name:'Pro'`, expand: ['data.default_price.product'] });
    const prices = await client.prices.search({ query: `product:'${product.id}'`, expand: ['data.product', 'data.currency_options'] });
    const customers = await client.customers.search({ query: `email:'ada@example.test'`, expand: ['data.default_source'] });
    const subscriptions = await client.subscriptions.search({ query: `status:'active'`, expand: ['data.customer'] });

    // Then every found object carries its expansions
    expect(products.data.map((item) => item.id)).toEqual([product.id]);
    expect(products.data[0]!.default_price).toMatchObject({ id: price.id, object: 'price', product: { id: product.id, object: 'product', name: 'Pro' } });
    expect(prices.data[0]).toMatchObject({ id: price.id, product: { id: product.id }, currency_options: { usd: { unit_amount: 1500 } } });
    expect(customers.data[0]!.default_source).toMatchObject({ id: customer.default_source, object: 'card', last4: '4242' });
    expect(subscriptions.data.find((item) => item.id === subscription.id)!.customer).toMatchObject({ id: customer.id, object: 'customer' });
    // And a path without `data.` is refused with the list's hint
    await expect(client.products.search({ query: `name:'Pro'`, expand: ['default_price'] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'expand[0]',
      message: "Invalid expand[0]: This property cannot be expanded (default_price). You may want to try expanding 'data.default_price' instead.",
    });
  });

  it('renders expanded objects at the version the request names, as the objects around them', async () => {
    // When a price is retrieved with its product expanded at a version from before `marketing_features`
    const old = sdk(secretKey, { apiVersion: '2023-10-16' as Stripe.LatestApiVersion });
    const retrieved = (await old.prices.retrieve(price.id, { expand: ['product'] })) as unknown as {
      product: Record<string, unknown>;
      recurring: Record<string, unknown>;
    };

    // Then the expanded product has that version's `features`, and the price that version's `aggregate_usage`
    expect(retrieved.product).toMatchObject({ id: product.id, features: [] });
    expect(retrieved.product).not.toHaveProperty('marketing_features');
    expect(retrieved.recurring.aggregate_usage).toBeNull();
  });

  it('expands issuing.transaction.authorization (with its transactions), card and cardholder, on retrieve and list', async () => {
    const cardholder = await client.issuing.cardholders.create({
      name: 'Jenny Rosen',
      billing: { address: { line1: '1 Main Street', city: 'San Francisco', state: 'CA', postal_code: '94111', country: 'US' } },
    });
    const card = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual', status: 'active' });
    const authorization = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 1_000 });
    const captured = await client.testHelpers.issuing.authorizations.capture(authorization.id);
    const transactionId = captured.transactions[0]!.id;

    const transaction = await client.issuing.transactions.retrieve(transactionId, { expand: ['authorization', 'authorization.card', 'cardholder'] });
    expect(transaction.authorization).toMatchObject({
      id: authorization.id,
      object: 'issuing.authorization',
      status: 'closed',
      card: { id: card.id, object: 'issuing.card', cardholder: { id: cardholder.id } },
      transactions: [{ id: transactionId, authorization: authorization.id }],
    });
    expect(transaction.cardholder).toMatchObject({ id: cardholder.id, object: 'issuing.cardholder' });
    const page = await client.issuing.transactions.list({ card: card.id, expand: ['data.authorization', 'data.card'] });
    expect(page.data[0]).toMatchObject({ id: transactionId, authorization: { id: authorization.id }, card: { id: card.id } });
    // A transaction without an authorization keeps its null
    const unlinked = await client.testHelpers.issuing.transactions.createUnlinkedRefund({ card: card.id, amount: 100, expand: ['authorization'] });
    expect(unlinked.authorization).toBeNull();
    // An authorization's embedded transactions expand through it
    const through = await client.issuing.authorizations.retrieve(authorization.id, { expand: ['transactions.authorization'] });
    expect((through.transactions[0]!.authorization as Stripe.Issuing.Authorization).id).toBe(authorization.id);
  });

  it('refuses what cannot be expanded here with the reference’s message, over the wire too', async () => {
    for (const path of ['default_payment_method', 'discounts', 'items.data.price']) {
      await expect(client.subscriptions.retrieve(subscription.id, { expand: [path] })).rejects.toMatchObject({
        statusCode: 400,
        code: 'parameter_invalid',
        param: 'expand[0]',
        message: `Invalid expand[0]: This property cannot be expanded (${path}).`,
      });
    }
    // The plain `expand[]=` form of older clients is taken too
    const raw = await api('GET', `/v1/subscriptions/${subscription.id}?expand[]=customer&expand[]=items.data.price.product`, { key: secretKey });
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ customer: { id: customer.id }, items: { data: [{ price: { product: { id: product.id } } }] } });
  });

  it('never shows another platform’s or the other mode’s object, even for an id forged into the caller’s own object', async () => {
    // Given another platform's customer, and this platform's live-mode customer
    const stranger = sdk((await newPlatform()).secret_key);
    const foreign = await stranger.customers.create({ name: 'Foreign', email: 'foreign@example.test' });
    const live = sdk((await issueApiKeys(platformStore(), account, { livemode: true })).secret_key);
    const liveCustomer = await live.customers.create({ name: 'Live' });
    // And the caller's subscription rewritten in the table to name each of them (as a forged id would)
    const table = stackTable();
    const key = { PK: subscriptionKeys.pk({ accountId: account, livemode: false }), SK: subscriptionKeys.sk(subscription.id) };
    const stored = (await table.getConsistent(key))!;
    for (const forged of [foreign.id, liveCustomer.id]) {
      await table.put({ TableName: table.name, Item: { ...stored, customer: forged } });
      // When the caller expands it, Then the customer is not read: it shows as a deleted customer
      expect((await client.subscriptions.retrieve(subscription.id, { expand: ['customer'] })).customer).toEqual({
        id: forged,
        object: 'customer',
        deleted: true,
      });
    }
    await table.put({ TableName: table.name, Item: stored });
    // And the other platform's own expansions never show the caller's objects
    expect((await stranger.subscriptions.list({ expand: ['data.customer'] })).data).toEqual([]);
    await expect(stranger.subscriptions.retrieve(subscription.id, { expand: ['customer'] })).rejects.toMatchObject({ statusCode: 404 });
    expect((await live.products.list({ expand: ['data.default_price'] })).data).toEqual([]);
  });
});
