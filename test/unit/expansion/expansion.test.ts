import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createPriceParams, createProductParams, updateProductParams } from '#shared/catalogue/schemas.ts';
import { serializePlan, serializePrice, serializeProduct } from '#shared/catalogue/serializer.ts';
import { catalogueService } from '#shared/catalogue/service.ts';
import { createCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import { customerService } from '#shared/customers/service.ts';
import { expansionLoaders } from '#shared/expansion/loaders.ts';
import { listOf, planExpansions, type ExpansionPlan, type ExpansionRoot } from '#shared/expansion/plan.ts';
import { expander, type ExpansionLoaders, type ObjectLoader } from '#shared/expansion/resolver.ts';
import { reachableFrom, wireExpander } from '#shared/expansion/wiring.ts';
import { expandParam } from '#shared/wire/params.ts';
import { validateParams } from '#shared/http/validation.ts';
import type { Scope } from '#shared/platform/types.ts';
import { createTokenParams } from '#shared/tokens/schemas.ts';
import { tokenService } from '#shared/tokens/service.ts';
import { batchedExpansionPorts, turnBatcher } from '../../support/expansion-fakes.ts';
import { fakeAccountSecretStore, memoryCatalogue, memoryCustomerRepository, memoryTokenRepository, originOf, recordingEmitter } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_expansion', livemode: false };
const otherAccount: Scope = { accountId: 'acct_other', livemode: false };
const liveMode: Scope = { accountId: 'acct_expansion', livemode: true };

const plan = (root: ExpansionRoot, paths: string[]): ExpansionPlan => {
  const planned = planExpansions(root, paths);
  if ('refused' in planned) throw new Error(planned.message);
  return planned;
};
const refusal = (root: ExpansionRoot, paths: string[]) => planExpansions(root, paths) as { refused: number; message: string };
const one = (type: ExpansionRoot['type']): ExpansionRoot => ({ type, shape: 'one' });

describe('expand[] paths, checked against what each object declares', () => {
  it('accepts every declared expansion, nested ones and list forms, up to four levels', () => {
    // Given the paths the reference allows on our objects
    const accepted: Array<[ExpansionRoot, string[]]> = [
      [one('product'), ['default_price', 'default_price.product']],
      [listOf('product'), ['data.default_price', 'data.default_price.product']],
      [one('subscription'), ['customer', 'customer.default_source', 'items.data.price.product', 'items.data.plan.product', 'default_source.customer']],
      [listOf('subscription'), ['data.customer', 'data.customer.default_source.customer']],
      [one('customer'), ['default_source', 'sources', 'sources.data.customer', 'default_source.customer.default_source', 'test_clock']],
      [listOf('customer'), ['data.default_source']],
      [one('price'), ['product', 'currency_options', 'product.default_price']],
      [one('issuing.transaction'), ['authorization', 'card', 'cardholder', 'authorization.card', 'authorization.transactions.card']],
      [listOf('issuing.transaction'), ['data.authorization.cardholder']],
      [one('issuing.authorization'), ['card', 'cardholder', 'transactions.authorization']],
      [one('customer_source'), ['customer', 'customer.default_source']],
    ];
    // Then each becomes a plan, whose tree has the first field of each path
    for (const [root, paths] of accepted) {
      const planned = plan(root, paths);
      expect(planned.paths).toEqual(paths);
      const first = planned.shape === 'list' ? paths[0]!.split('.')[1]! : paths[0]!.split('.')[0]!;
      expect(planned.root.fields.has(first)).toBe(true);
    }
  });

  it('refuses a field that is not expandable, or not expandable here, naming the path as the reference does', () => {
    // Fields whose targets this service does not have, fields that are not ids, the embedded objects themselves
    const refused: Array<[ExpansionRoot, string]> = [
      [one('subscription'), 'default_payment_method'],
      [one('subscription'), 'items'],
      [one('subscription'), 'items.data'],
      [one('subscription'), 'items.data.price'],
      [one('subscription'), 'customer.invoice_settings.default_payment_method'],
      [one('customer'), 'email'],
      [one('customer'), ''],
      [one('customer'), 'default_source.'],
      [one('product'), 'tax_code'],
      [one('price'), 'currency_options.usd'],
      [one('price'), 'tiers.up_to'],
      [one('issuing.transaction'), 'balance_transaction'],
      [one('issuing.transaction'), 'dispute'],
      [one('issuing.card'), 'cardholder'],
      [one('issuing.card'), 'personalization_design'],
      [one('customer'), '__proto__'],
      [one('customer'), 'constructor'],
    ];
    for (const [root, path] of refused) expect(refusal(root, [path]), path).toEqual({ refused: 0, message: `This property cannot be expanded (${path}).` });
  });

  it('refuses a fifth level with the reference’s message, before looking at the fields', () => {
    expect(refusal(listOf('subscription'), ['data.items.data.price.product'])).toEqual({
      refused: 0,
      message: 'You cannot expand more than 4 levels of a property.',
    });
    expect(refusal(one('customer'), ['a.b.c.d.e'])).toMatchObject({ message: 'You cannot expand more than 4 levels of a property.' });
  });

  it('on a list, hints at the data. form of a path the items would take, and refuses what only the object itself may include', () => {
    expect(refusal(listOf('product'), ['data.default_price', 'default_price'])).toEqual({
      refused: 1,
      message: "This property cannot be expanded (default_price). You may want to try expanding 'data.default_price' instead.",
    });
    expect(refusal(listOf('product'), ['data'])).toMatchObject({ message: 'This property cannot be expanded (data).' });
    // `sources` is one Query per customer: only on a response that is the customer itself
    expect(refusal(listOf('customer'), ['data.sources'])).toMatchObject({ message: 'This property cannot be expanded (data.sources).' });
    expect(refusal(one('subscription'), ['customer.sources'])).toMatchObject({ message: 'This property cannot be expanded (customer.sources).' });
  });

  it('answers a refused path as a 400 naming expand[i], and a response with nothing to expand refuses every path', () => {
    // Given a list's parameters
    const listParams = z.strictObject({ expand: expandParam(listOf('product')).optional() });
    // When the second path is refused, Then the error names it
    expect(() => validateParams(listParams, { expand: ['data.default_price', 'data.tax_code'] }, 'v1')).toThrow(
      expect.objectContaining({
        code: 'parameter_invalid',
        param: 'expand[1]',
        message: 'Invalid expand[1]: This property cannot be expanded (data.tax_code).',
      }),
    );
    // And a valid expand becomes the plan
    expect(validateParams(listParams, { expand: ['data.default_price'] }, 'v1').expand).toMatchObject({ paths: ['data.default_price'], shape: 'list' });
    // And more than 20 paths are refused, as before
    expect(() => validateParams(listParams, { expand: Array.from({ length: 21 }, () => 'data.default_price') }, 'v1')).toThrow(
      expect.objectContaining({ param: 'expand' }),
    );
    const nothing = z.strictObject({ expand: expandParam().optional() });
    expect(() => validateParams(nothing, { expand: ['secret'] }, 'v1')).toThrow(
      expect.objectContaining({ param: 'expand[0]', message: 'Invalid expand[0]: This property cannot be expanded (secret).' }),
    );
  });
});

/** Fake loaders that answer `{id, object, loaded}` for known ids and count their calls. */
function countingLoaders(known: Record<string, Record<string, unknown>>) {
  const calls: Array<{ type: string; ids: string[]; scope: Scope }> = [];
  const loader =
    (type: string): ObjectLoader =>
    async (callerScope, refs) => {
      calls.push({ type, ids: refs.map(({ id }) => id), scope: callerScope });
      return refs.map(({ id }) => (known[id] ? structuredClone(known[id]) : undefined));
    };
  const loaders: ExpansionLoaders = {
    objects: {
      customer: loader('customer'),
      customer_source: loader('customer_source'),
      invoice: loader('invoice'),
      product: loader('product'),
      price: loader('price'),
      'issuing.authorization': loader('issuing.authorization'),
      'issuing.card': loader('issuing.card'),
      'issuing.cardholder': loader('issuing.cardholder'),
      'test_helpers.test_clock': loader('test_helpers.test_clock'),
    },
    included: {
      'customer.sources': async (_scope, holders) => holders.map(() => ({ object: 'list', data: [] })),
      'price.currency_options': async (_scope, holders) => holders.map(() => ({ usd: {} })),
      'price.tiers': async (_scope, holders) => holders.map(() => []),
      'plan.tiers': async (_scope, holders) => holders.map(() => []),
    },
  };
  return { loaders, calls };
}

describe('the expander', () => {
  it('expands a level at a time, calling each type’s loader once per level with every id of the level', async () => {
    // Given a subscription whose items' prices name two products, and a customer with a default source
    const { loaders, calls } = countingLoaders({
      cus_1: { id: 'cus_1', object: 'customer', default_source: 'card_1' },
      prod_1: { id: 'prod_1', object: 'product', default_price: 'price_9' },
      prod_2: { id: 'prod_2', object: 'product', default_price: null },
      card_1: { id: 'card_1', object: 'card', customer: 'cus_1' },
    });
    const body = {
      object: 'subscription',
      customer: 'cus_1',
      default_source: null,
      items: {
        object: 'list',
        data: [
          { object: 'subscription_item', price: { id: 'price_1', object: 'price', product: 'prod_1' } },
          { object: 'subscription_item', price: { id: 'price_2', object: 'price', product: 'prod_2' } },
          { object: 'subscription_item', price: { id: 'price_3', object: 'price', product: 'prod_1' } },
        ],
      },
    };
    // When customer.default_source and items.data.price.product are expanded
    const expanded = (await expander(loaders)(scope, body, plan(one('subscription'), ['customer.default_source', 'items.data.price.product']))) as any;

    // Then level 1 read the customer and all three products (one call each type), level 2 the source
    expect(calls).toEqual([
      { type: 'customer', ids: ['cus_1'], scope },
      { type: 'product', ids: ['prod_1', 'prod_2', 'prod_1'], scope },
      { type: 'customer_source', ids: ['card_1'], scope },
    ]);
    expect(expanded.customer).toEqual({ id: 'cus_1', object: 'customer', default_source: { id: 'card_1', object: 'card', customer: 'cus_1' } });
    expect(expanded.items.data.map((item: any) => item.price.product.id)).toEqual(['prod_1', 'prod_2', 'prod_1']);
    // And each place got its own copy: expanding one never changes another
    expect(expanded.items.data[0].price.product).not.toBe(expanded.items.data[2].price.product);
    // And what was not asked for stays an id
    expect(expanded.items.data[0].price.product.default_price).toBe('price_9');
    expect(expanded.default_source).toBeNull();
  });

  it('expands every item of a list page with one call per level, and leaves an id it cannot find as it is', async () => {
    const { loaders, calls } = countingLoaders({
      price_1: { id: 'price_1', object: 'price', product: 'prod_1' },
      price_2: { id: 'price_2', object: 'price', product: 'prod_2' },
      prod_1: { id: 'prod_1', object: 'product' },
    });
    const body = {
      object: 'list',
      data: [
        { id: 'prod_a', object: 'product', default_price: 'price_1' },
        { id: 'prod_b', object: 'product', default_price: null },
        { id: 'prod_c', object: 'product', default_price: 'price_2' },
        { id: 'prod_d', object: 'product', default_price: 'price_gone' },
      ],
      has_more: false,
      url: '/v1/products',
    };
    const expanded = (await expander(loaders)(scope, body, plan(listOf('product'), ['data.default_price.product']))) as any;
    expect(calls.map(({ type, ids }) => [type, ids])).toEqual([
      ['price', ['price_1', 'price_2', 'price_gone']],
      ['product', ['prod_1', 'prod_2']],
    ]);
    expect(expanded.data.map((product: any) => product.default_price?.product ?? product.default_price)).toEqual([
      { id: 'prod_1', object: 'product' },
      null,
      'prod_2',
      'price_gone',
    ]);
  });

  it('leaves a deleted object in its deleted form: nothing of it is expanded or included, and nothing is read for it', async () => {
    // Given a deleted customer as the response, and a subscription whose customer is deleted
    const { loaders, calls } = countingLoaders({ cus_gone: { id: 'cus_gone', object: 'customer', deleted: true } });
    const deleted = { id: 'cus_gone', object: 'customer', deleted: true };

    // When its sources and default source are asked for, on it and through the subscription
    const retrieved = await expander(loaders)(scope, structuredClone(deleted), plan(one('customer'), ['sources', 'default_source']));
    const subscription = (await expander(loaders)(
      scope,
      { id: 'sub_1', object: 'subscription', customer: 'cus_gone', default_source: null, items: { object: 'list', data: [] } },
      plan(one('subscription'), ['customer.default_source']),
    )) as any;

    // Then the deleted form stays exactly as it is, and only the customer itself was read
    expect(retrieved).toEqual(deleted);
    expect(subscription.customer).toEqual(deleted);
    expect(calls.map(({ type }) => type)).toEqual(['customer']);
  });

  it('shows an included field only on the objects whose path asked for it', async () => {
    const { loaders } = countingLoaders({});
    const body = { object: 'list', data: [{ id: 'price_1', object: 'price', product: 'prod_1' }] };
    const expanded = (await expander(loaders)(scope, body, plan(listOf('price'), ['data.currency_options']))) as any;
    expect(expanded.data[0].currency_options).toEqual({ usd: {} });
  });
});

describe('the loader groups a function wires', () => {
  it('reaches from each response type only the types its expand[] can name, however deep', () => {
    // Given the object types handlers answer
    // When the types their expand[] can reach are walked
    const reach = (root: ExpansionRoot['type']) => {
      const { targets, included } = reachableFrom(root);
      return { targets: [...targets].sort(), included: [...included].sort() };
    };

    // Then a customer reaches its sources and clock (and itself through a source), a subscription also the
    // catalogue and its latest invoice, a catalogue object only the catalogue, an invoice nothing
    expect(reach('customer')).toEqual({ targets: ['customer', 'customer_source', 'test_helpers.test_clock'], included: ['customer.sources'] });
    expect(reach('subscription_item')).toEqual({ targets: ['price', 'product'], included: ['plan.tiers', 'price.currency_options', 'price.tiers'] });
    expect(reach('subscription').targets).toEqual(['customer', 'customer_source', 'invoice', 'price', 'product', 'test_helpers.test_clock']);
    expect(reach('issuing.transaction').targets).toEqual(['issuing.authorization', 'issuing.card', 'issuing.cardholder']);
    expect(reach('invoice')).toEqual({ targets: [], included: [] });
  });

  it('refuses at cold start an expander wired without a group its type can reach, naming what is missing', () => {
    // Given a subscription function wired with the customer loaders only
    const customersOnly = () => ({
      objects: { customer: async () => [], customer_source: async () => [], 'test_helpers.test_clock': async () => [] },
      included: { 'customer.sources': async () => [] },
    });

    // When its expander is made, Then it throws naming the catalogue and invoice types
    expect(() => wireExpander('subscription', customersOnly)).toThrow(
      'The expander of subscription needs the loader groups of: invoice, product, price, price.currency_options, price.tiers, plan.tiers',
    );
  });
});

describe('the loaders on the repositories', () => {
  function setup() {
    const catalogue = memoryCatalogue();
    const tokens = memoryTokenRepository();
    const customers = memoryCustomerRepository(tokens);
    const { events } = recordingEmitter();
    let now = 1_700_000_000_000;
    const clock = () => now++;
    const shop = catalogueService({ catalogue, events, meters: { get: async () => undefined }, clock });
    const people = customerService({ repository: customers, subscriptions: { cancelAllOf: async () => undefined }, tokens, events, clock });
    const tokenMaker = tokenService({ repository: tokens, fingerprintKeys: fakeAccountSecretStore(), ttlMillis: 600_000, clock });
    const card = async (owner: Scope) =>
      (await tokenMaker.create(owner, createTokenParams.parse({ card: { number: '4242424242424242', exp_month: '8', exp_year: '2030', cvc: '123' } }), null))
        .id;
    const batcher = turnBatcher();
    const expand = expander(expansionLoaders(batchedExpansionPorts(batcher, { customers, products: catalogue.products, prices: catalogue.prices })));
    const productWithPrice = async (owner: Scope, name: string) => {
      const product = await shop.createProduct(originOf(owner), createProductParams.parse({ name }));
      const price = await shop.createPrice(
        originOf(owner),
        createPriceParams.parse({ product: product.id, currency: 'usd', unit_amount: 500, currency_options: { eur: { unit_amount: 450 } } }),
      );
      return { product: await shop.updateProduct(originOf(owner), product.id, updateProductParams.parse({ default_price: price.id })), price };
    };
    return { shop, people, card, batcher, expand, productWithPrice, customers };
  }

  it('reads each level of a list page in one batch, whatever the types and the number of objects', async () => {
    // Given three products with default prices, and a customer with a card
    const { people, card, batcher, expand, productWithPrice } = setup();
    const made = await Promise.all(['A', 'B', 'C'].map((name) => productWithPrice(scope, name)));
    const customer = await people.create(originOf(scope), createCustomerParams.parse({ source: await card(scope) }));
    batcher.batches = 0;
    batcher.keys = 0;

    // When a page of the three products expands data.default_price.product
    const page = { object: 'list', data: made.map(({ product }) => serializeProduct(product)), has_more: false, url: '/v1/products' };
    const expanded = (await expand(scope, page, plan(listOf('product'), ['data.default_price.product']))) as any;

    // Then two batches were read (prices, then products), three keys each
    expect(batcher.batches).toBe(2);
    expect(batcher.keys).toBe(6);
    expect(expanded.data.map((product: any) => [product.default_price.id, product.default_price.product.id])).toEqual(
      made.map(({ product, price }) => [price.id, product.id]),
    );

    // And a subscription-shaped answer expanding its customer, the customer's source and its items' products
    // reads customer and products in one batch, the source in a second
    batcher.batches = 0;
    const subscription = {
      object: 'subscription',
      customer: customer.id,
      items: { object: 'list', data: made.map(({ price }) => ({ object: 'subscription_item', price: serializePrice(price), plan: serializePlan(price) })) },
    };
    const withCustomer = (await expand(scope, subscription, plan(one('subscription'), ['customer.default_source', 'items.data.price.product']))) as any;
    expect(batcher.batches).toBe(2);
    expect(withCustomer.customer).toMatchObject({ id: customer.id, object: 'customer', default_source: { id: customer.defaultSource, object: 'card' } });
    expect(withCustomer.items.data[0].price.product).toMatchObject({ id: made[0]!.product.id, object: 'product' });
  });

  it('reads in the caller’s scope only: another account’s or mode’s object never appears', async () => {
    // Given a product and a customer of another account, and one of the live mode of the same account
    const { people, card, expand, productWithPrice } = setup();
    const foreign = await productWithPrice(otherAccount, 'Foreign');
    const live = await productWithPrice(liveMode, 'Live');
    const foreignCustomer = await people.create(originOf(otherAccount), createCustomerParams.parse({ source: await card(otherAccount) }));

    // When the caller's own answer carries their ids (as a forged id would)
    const body = {
      object: 'list',
      data: [
        { id: 'price_x', object: 'price', product: foreign.product.id },
        { id: 'price_y', object: 'price', product: live.product.id },
      ],
    };
    const expanded = (await expand(scope, body, plan(listOf('price'), ['data.product']))) as any;
    const subscription = (await expand(scope, { object: 'subscription', customer: foreignCustomer.id }, plan(one('subscription'), ['customer']))) as any;

    // Then nothing of theirs is read: the products show as gone, the customer as deleted
    expect(expanded.data.map((price: any) => price.product)).toEqual([
      { id: foreign.product.id, object: 'product', deleted: true },
      { id: live.product.id, object: 'product', deleted: true },
    ]);
    expect(subscription.customer).toEqual({ id: foreignCustomer.id, object: 'customer', deleted: true });
  });

  it('renders a deleted customer in the reference’s deleted form, and currency_options and sources only when asked', async () => {
    const { people, card, expand, productWithPrice } = setup();
    const customer = await people.create(originOf(scope), createCustomerParams.parse({ source: await card(scope) }));
    await people.delete(originOf(scope), customer.id);
    const subscription = (await expand(scope, { object: 'subscription', customer: customer.id }, plan(one('subscription'), ['customer']))) as any;
    expect(subscription.customer).toEqual({ id: customer.id, object: 'customer', deleted: true });

    const { product, price } = await productWithPrice(scope, 'Options');
    const plain = serializePrice(price);
    expect(JSON.parse(JSON.stringify(plain))).not.toHaveProperty('currency_options');
    const shown = (await expand(scope, serializeProduct(product), plan(one('product'), ['default_price.currency_options']))) as any;
    expect(shown.default_price.currency_options).toEqual({
      usd: { custom_unit_amount: null, tax_behavior: 'unspecified', unit_amount: 500, unit_amount_decimal: '500' },
      eur: { custom_unit_amount: null, tax_behavior: 'unspecified', unit_amount: 450, unit_amount_decimal: '450' },
    });

    const owner = await people.create(originOf(scope), createCustomerParams.parse({ source: await card(scope) }));
    const withSources = (await expand(scope, serializeCustomer(owner), plan(one('customer'), ['sources']))) as any;
    expect(withSources.sources).toMatchObject({
      object: 'list',
      has_more: false,
      url: `/v1/customers/${owner.id}/sources`,
      data: [{ id: owner.defaultSource }],
    });
  });
});
