import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';

describe('updating and deleting products and prices through the official SDK', () => {
  let client: Stripe;
  beforeAll(async () => {
    client = sdk((await newPlatform()).secret_key);
  });

  /** The snapshot events of one type about one object, newest first. */
  const eventsOf = async (type: string, id: string) =>
    (await client.events.list({ type, limit: 100 })).data.filter((event) => (event.data.object as { id: string }).id === id);

  it('updates a product with what create takes and a default price of its own, and tells it in product.updated', async () => {
    const product = await client.products.create({ name: 'Gold', unit_label: 'seat', marketing_features: [{ name: 'Fast' }], shippable: true });
    expect(product).toMatchObject({ marketing_features: [{ name: 'Fast' }], shippable: true, package_dimensions: null });
    const price = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 1000 });
    const other = await client.prices.create({ product_data: { name: 'Other' }, currency: 'usd', unit_amount: 1 });

    const updated = await client.products.update(product.id, {
      name: 'Platinum',
      description: 'The best',
      unit_label: '',
      default_price: price.id,
      package_dimensions: { height: 1.5, length: 2, weight: 3.25, width: 4 },
      metadata: { tier: '2' },
    });
    expect(updated).toMatchObject({
      id: product.id,
      name: 'Platinum',
      description: 'The best',
      unit_label: null,
      default_price: price.id,
      package_dimensions: { height: 1.5, length: 2, weight: 3.25, width: 4 },
      metadata: { tier: '2' },
    });
    expect(await client.products.retrieve(product.id)).toEqual(updated);
    const [event] = await eventsOf('product.updated', product.id);
    expect(event!.data.previous_attributes).toMatchObject({ name: 'Gold', description: null, unit_label: 'seat', default_price: null, metadata: {} });

    await expect(client.products.update(product.id, { default_price: other.id })).rejects.toMatchObject({ statusCode: 400, param: 'default_price' });

    // The default price cannot be archived, and an archived price cannot become the default
    await expect(client.prices.update(price.id, { active: false })).rejects.toMatchObject({
      statusCode: 400,
      message: 'This price cannot be archived because it is the default price of its product.',
    });
    const archived = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 500, active: false });
    await expect(client.products.update(product.id, { default_price: archived.id })).rejects.toMatchObject({ statusCode: 400, param: 'default_price' });
    expect((await client.prices.retrieve(price.id)).active).toBe(true);
    await expect(client.products.update('prod_missing', { name: 'x' })).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    await expect(client.products.update(product.id, { type: 'good' } as never)).rejects.toMatchObject({ statusCode: 400, param: 'type' });
  });

  it('deletes a product without prices and refuses one with a price, as the reference does', async () => {
    const unused = await client.products.create({ name: 'Unused' });
    await expect(client.products.del(unused.id)).resolves.toEqual({ id: unused.id, object: 'product', deleted: true });
    await expect(client.products.retrieve(unused.id)).rejects.toMatchObject({ statusCode: 404 });
    expect(await eventsOf('product.deleted', unused.id)).toHaveLength(1);

    const priced = await client.products.create({ name: 'Priced' });
    await client.prices.create({ product: priced.id, currency: 'usd', unit_amount: 5 });
    await expect(client.products.del(priced.id)).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      message: 'This product cannot be deleted because it has one or more user-created prices.',
    });
    expect(await client.products.retrieve(priced.id)).toMatchObject({ id: priced.id });
  });

  it('never leaves a price without its product when a price is created while the product is deleted', async () => {
    for (let round = 0; round < 5; round++) {
      const product = await client.products.create({ name: `Race ${round}` });
      const [deleted, created] = await Promise.allSettled([
        client.products.del(product.id),
        client.prices.create({ product: product.id, currency: 'usd', unit_amount: 7 }),
      ]);
      // Exactly one wins: the delete (and the price is refused as of a missing product), or the price (and the delete is refused).
      expect([deleted.status, created.status].sort()).toEqual(['fulfilled', 'rejected']);
      if (created.status === 'fulfilled') expect(await client.products.retrieve(product.id)).toMatchObject({ id: product.id });
      else expect(created.reason).toMatchObject({ statusCode: 400, param: 'product', code: 'resource_missing' });
    }
  });

  it('updates a price (tax_behavior once from unspecified) and moves lookup keys only when told to', async () => {
    const product = await client.products.create({ name: 'Keys' });
    const key = `standard-${Date.now()}`;
    const first = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 100, lookup_key: key, nickname: 'first' });
    const updated = await client.prices.update(first.id, { active: false, nickname: 'renamed', metadata: { a: '1' }, tax_behavior: 'exclusive' });
    expect(updated).toMatchObject({ active: false, nickname: 'renamed', metadata: { a: '1' }, tax_behavior: 'exclusive', lookup_key: key });
    const [event] = await eventsOf('price.updated', first.id);
    // (the own currency's entry of currency_options, which events show, follows the price's tax_behavior)
    expect(event!.data.previous_attributes).toEqual({
      active: true,
      nickname: 'first',
      metadata: {},
      tax_behavior: 'unspecified',
      currency_options: { usd: { custom_unit_amount: null, tax_behavior: 'unspecified', unit_amount: 100, unit_amount_decimal: '100' } },
    });
    await expect(client.prices.update(first.id, { tax_behavior: 'inclusive' })).rejects.toMatchObject({ statusCode: 400, param: 'tax_behavior' });

    await expect(client.prices.create({ product: product.id, currency: 'usd', unit_amount: 200, lookup_key: key })).rejects.toMatchObject({
      statusCode: 400,
      param: 'lookup_key',
      message: expect.stringContaining('already uses that lookup key'),
    });
    const second = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 200, lookup_key: key, transfer_lookup_key: true });
    expect(second.lookup_key).toBe(key);
    expect((await client.prices.retrieve(first.id)).lookup_key).toBeNull();
    await expect(client.prices.update(first.id, { lookup_key: key })).rejects.toMatchObject({ statusCode: 400, param: 'lookup_key' });
    expect(await client.prices.update(first.id, { lookup_key: key, transfer_lookup_key: true })).toMatchObject({ lookup_key: key });
    expect((await client.prices.retrieve(second.id)).lookup_key).toBeNull();
    // Renaming a key gives the old one up: another price may take it.
    await client.prices.update(first.id, { lookup_key: `${key}-renamed` });
    expect(await client.prices.update(second.id, { lookup_key: key })).toMatchObject({ lookup_key: key });
  });

  it('lists prices by lookup keys (up to 10), combined with the other filters', async () => {
    const product = await client.products.create({ name: 'Lookup' });
    const stamp = Date.now();
    const monthly = await client.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 100,
      lookup_key: `monthly-${stamp}`,
      recurring: { interval: 'month' },
    });
    const yearly = await client.prices.create({
      product: product.id,
      currency: 'eur',
      unit_amount: 1000,
      lookup_key: `yearly-${stamp}`,
      recurring: { interval: 'year' },
    });
    await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 5, lookup_key: `other-${stamp}` });

    const both = await client.prices.list({ lookup_keys: [`monthly-${stamp}`, `yearly-${stamp}`, `missing-${stamp}`] });
    expect(both.data.map((price) => price.id)).toEqual([yearly.id, monthly.id]);
    expect(both).toMatchObject({ object: 'list', url: '/v1/prices', has_more: false });
    expect((await client.prices.list({ lookup_keys: [`monthly-${stamp}`, `yearly-${stamp}`], currency: 'usd' })).data.map((price) => price.id)).toEqual([
      monthly.id,
    ]);
    expect((await client.prices.list({ lookup_keys: [`monthly-${stamp}`, `yearly-${stamp}`], limit: 1 })).data.map((price) => price.id)).toEqual([yearly.id]);
    expect(
      (await client.prices.list({ lookup_keys: [`monthly-${stamp}`, `yearly-${stamp}`], starting_after: yearly.id })).data.map((price) => price.id),
    ).toEqual([monthly.id]);

    // A key another account uses is not this one's; more than 10 keys are refused
    const stranger = sdk((await newPlatform()).secret_key);
    expect((await stranger.prices.list({ lookup_keys: [`monthly-${stamp}`] })).data).toEqual([]);
    await expect(client.prices.list({ lookup_keys: Array.from({ length: 11 }, (_, i) => `k${i}`) })).rejects.toMatchObject({
      statusCode: 400,
      param: 'lookup_keys',
    });
  });

  it('shows currency_options only when expanded, with the price’s own currency, and replaces them on update', async () => {
    const product = await client.products.create({ name: 'Worldwide' });
    const price = await client.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 1000,
      // The SDK's request schema takes currency_options for an array, so it would send a Decimal object as its fields: a string goes as is.
      currency_options: { eur: { unit_amount: 900 }, gbp: { unit_amount_decimal: '800.5' as unknown as Stripe.Decimal, tax_behavior: 'inclusive' } },
    });
    expect(price).not.toHaveProperty('currency_options');
    const expanded = await client.prices.retrieve(price.id, { expand: ['currency_options', 'product'] });
    expect(expanded.currency_options).toEqual({
      usd: { custom_unit_amount: null, tax_behavior: 'unspecified', unit_amount: 1000, unit_amount_decimal: '1000' },
      eur: { custom_unit_amount: null, tax_behavior: 'unspecified', unit_amount: 900, unit_amount_decimal: '900' },
      gbp: { custom_unit_amount: null, tax_behavior: 'inclusive', unit_amount: null, unit_amount_decimal: '800.5' },
    });
    expect(expanded.product).toMatchObject({ id: product.id, object: 'product', name: 'Worldwide' });
    const listed = await client.prices.list({ product: product.id, expand: ['data.currency_options'] });
    expect(Object.keys(listed.data[0]!.currency_options!)).toEqual(['usd', 'eur', 'gbp']);

    const replaced = await client.prices.update(price.id, { currency_options: { jpy: { unit_amount: 150 } }, expand: ['currency_options'] });
    expect(Object.keys(replaced.currency_options!)).toEqual(['usd', 'jpy']);
    const [event] = await eventsOf('price.updated', price.id);
    expect(Object.keys((event!.data.object as Stripe.Price).currency_options!).sort()).toEqual(['jpy', 'usd']);
    expect(Object.keys((event!.data.previous_attributes as Partial<Stripe.Price>).currency_options!).sort()).toEqual(['eur', 'gbp', 'usd']);
    await expect(client.prices.update(price.id, { currency_options: { jpy: { unit_amount: 150, tax_behavior: 'inclusive' } } })).resolves.toBeDefined();
    await expect(client.prices.update(price.id, { currency_options: { jpy: { unit_amount: 150, tax_behavior: 'exclusive' } } })).rejects.toMatchObject({
      statusCode: 400,
      param: 'currency_options[jpy][tax_behavior]',
    });
    await expect(
      client.prices.create({
        product: product.id,
        currency: 'usd',
        unit_amount: 1,
        currency_options: { eur: { unit_amount: 1, tiers: [{ up_to: 'inf', unit_amount: 1 }] } },
      }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'currency_options[eur][tiers]' });
  });
});
