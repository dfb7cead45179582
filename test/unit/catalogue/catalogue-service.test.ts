import { describe, expect, it } from 'vitest';
import {
  createPriceParams,
  createProductParams,
  listPricesParams,
  retrievePriceParams,
  updatePriceParams,
  updateProductParams,
} from '#shared/catalogue/schemas.ts';
import { serializePrice } from '#shared/catalogue/serializer.ts';
import { catalogueService } from '#shared/catalogue/service.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { expansionLoaders } from '#shared/expansion/loaders.ts';
import { expander } from '#shared/expansion/resolver.ts';
import type { Scope } from '#shared/platform/types.ts';
import { noExpansionPorts } from '../../support/expansion-fakes.ts';
import { memoryCatalogue, originOf, recordingEmitter } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_catalogue', livemode: false };
const other: Scope = { accountId: 'acct_other', livemode: false };

function setup() {
  const catalogue = memoryCatalogue();
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const service = catalogueService({ catalogue, events: recorded.events, meters: { get: async () => undefined }, clock: () => now++ });
  return { service, catalogue, products: catalogue.products, prices: catalogue.prices, written: recorded.written };
}

describe('products and prices (service with the shared fakes)', () => {
  it('creates a product with its defaults and emits product.created with the object', async () => {
    const { service, written } = setup();
    const product = await service.createProduct(originOf(scope), createProductParams.parse({ name: 'Gold', metadata: { tier: '1' } }));
    expect(product).toMatchObject({ name: 'Gold', active: true, description: null, metadata: { tier: '1' }, images: [], version: 1 });
    expect(written[0]!.snapshotEvents[0]).toMatchObject({ type: 'product.created', object: { id: product.id, object: 'product', name: 'Gold' } });
  });

  it('keeps a decimal amount exactly, with unit_amount only when it is whole', async () => {
    const { service } = setup();
    const product = await service.createProduct(originOf(scope), createProductParams.parse({ name: 'Gold' }));
    const whole = await service.createPrice(originOf(scope), createPriceParams.parse({ product: product.id, currency: 'usd', unit_amount_decimal: '1200.00' }));
    const fraction = await service.createPrice(
      originOf(scope),
      createPriceParams.parse({ product: product.id, currency: 'usd', unit_amount_decimal: '0.125' }),
    );
    expect(whole).toMatchObject({ unitAmount: 1200, unitAmountDecimal: '1200.00', type: 'one_time' });
    expect(fraction).toMatchObject({ unitAmount: null, unitAmountDecimal: '0.125' });
  });

  it('creates a recurring price with a new product from product_data: two objects, two events, one write', async () => {
    const { service, products, written } = setup();
    const price = await service.createPrice(
      originOf(scope),
      createPriceParams.parse({ product_data: { name: 'Silver' }, currency: 'eur', unit_amount: 500, recurring: { interval: 'month' } }),
    );
    expect(price).toMatchObject({ type: 'recurring', recurring: { interval: 'month', intervalCount: 1 }, currency: 'eur' });
    expect(await products.get(scope, price.product)).toMatchObject({ name: 'Silver', priceCount: 1 });
    expect(written).toHaveLength(1);
    expect(written[0]!.snapshotEvents.map((event) => event.type)).toEqual(['product.created', 'price.created']);
  });

  it('refuses both amounts, neither product nor product_data, and a product of another owner', async () => {
    const { service } = setup();
    const product = await service.createProduct(originOf(scope), createProductParams.parse({ name: 'Gold' }));
    const both = createPriceParams.parse({ product: product.id, currency: 'usd', unit_amount: 1, unit_amount_decimal: '1' });
    await expect(service.createPrice(originOf(scope), both)).rejects.toMatchObject({ param: 'unit_amount_decimal' });
    await expect(service.createPrice(originOf(scope), createPriceParams.parse({ currency: 'usd', unit_amount: 1 }))).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    await expect(service.createPrice(originOf(other), createPriceParams.parse({ product: product.id, currency: 'usd', unit_amount: 1 }))).rejects.toMatchObject(
      { code: 'resource_missing', param: 'product' },
    );
    await expect(service.retrieveProduct(other, product.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  const gold = async (service: ReturnType<typeof setup>['service']) => service.createProduct(originOf(scope), createProductParams.parse({ name: 'Gold' }));
  const priceOf = (productId: string, extra: Record<string, unknown> = {}) =>
    createPriceParams.parse({ product: productId, currency: 'usd', unit_amount: 100, ...extra });

  it("updates a product (what create takes, `''` clears) and emits product.updated with the previous attributes", async () => {
    const { service, written } = setup();
    const product = await service.createProduct(
      originOf(scope),
      createProductParams.parse({ name: 'Gold', unit_label: 'seat', marketing_features: [{ name: 'Fast' }], shippable: 'true' }),
    );
    const updated = await service.updateProduct(
      originOf(scope),
      product.id,
      updateProductParams.parse({
        name: 'Platinum',
        unit_label: '',
        package_dimensions: { height: '1.5', length: 2, weight: 3, width: 4 },
        marketing_features: '',
        metadata: { tier: '2' },
      }),
    );
    expect(updated).toMatchObject({
      name: 'Platinum',
      unitLabel: null,
      marketingFeatures: [],
      shippable: true,
      packageDimensions: { height: 1.5, length: 2, weight: 3, width: 4 },
      metadata: { tier: '2' },
      version: 2,
    });
    const event = written.at(-1)!.snapshotEvents[0]!;
    expect(event).toMatchObject({ type: 'product.updated', object: { name: 'Platinum', unit_label: null } });
    expect(event.previousAttributes).toMatchObject({ name: 'Gold', unit_label: 'seat', marketing_features: [{ name: 'Fast' }], package_dimensions: null });
  });

  it('takes as default_price only a price of the same product', async () => {
    const { service } = setup();
    const product = await gold(service);
    const otherProduct = await gold(service);
    const own = await service.createPrice(originOf(scope), priceOf(product.id));
    const foreign = await service.createPrice(originOf(scope), priceOf(otherProduct.id));
    await expect(service.updateProduct(originOf(scope), product.id, updateProductParams.parse({ default_price: foreign.id }))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'default_price',
    });
    await expect(service.updateProduct(originOf(scope), product.id, updateProductParams.parse({ default_price: 'price_missing' }))).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'default_price',
    });
    expect(await service.updateProduct(originOf(scope), product.id, updateProductParams.parse({ default_price: own.id }))).toMatchObject({
      defaultPrice: own.id,
    });
  });

  it('takes as default_price only an active price, and never archives the default price', async () => {
    const { service, catalogue } = setup();
    const product = await gold(service);
    const archived = await service.createPrice(originOf(scope), priceOf(product.id, { active: 'false' }));
    await expect(service.updateProduct(originOf(scope), product.id, updateProductParams.parse({ default_price: archived.id }))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'default_price',
      message: expect.stringContaining('must be an active price'),
    });

    const current = await service.createPrice(originOf(scope), priceOf(product.id));
    await service.updateProduct(originOf(scope), product.id, updateProductParams.parse({ default_price: current.id }));
    await expect(service.updatePrice(originOf(scope), current.id, updatePriceParams.parse({ active: 'false' }))).rejects.toMatchObject({
      param: 'active',
      message: 'This price cannot be archived because it is the default price of its product.',
    });
    expect(await service.retrievePrice(scope, current.id)).toMatchObject({ active: true });
    // Other changes of the default price, and archiving any other price, still go through
    expect(await service.updatePrice(originOf(scope), current.id, updatePriceParams.parse({ nickname: 'Main' }))).toMatchObject({ nickname: 'Main' });
    await service.updateProduct(
      originOf(scope),
      product.id,
      updateProductParams.parse({ default_price: (await service.createPrice(originOf(scope), priceOf(product.id))).id }),
    );
    expect(await service.updatePrice(originOf(scope), current.id, updatePriceParams.parse({ active: 'false' }))).toMatchObject({ active: false });

    // Each relies on the other as read: a default price archived after the read makes the commit fail (and the service start over)
    const read = (await catalogue.prices.get(scope, archived.id))!;
    const product2 = (await catalogue.products.get(scope, product.id))!;
    expect(
      await catalogue.commit({
        scope,
        changedProducts: [{ ...product2, version: product2.version + 1 }],
        unchangedPrices: [{ ...read, version: read.version - 1 }],
      }),
    ).toBe(false);
  });

  it('deletes a product no price uses, emitting product.deleted, and refuses one with a price', async () => {
    const { service, products, written } = setup();
    const unused = await gold(service);
    const priced = await gold(service);
    await service.createPrice(originOf(scope), priceOf(priced.id));
    expect(await products.get(scope, priced.id)).toMatchObject({ priceCount: 1, version: 2 });

    await expect(service.deleteProduct(originOf(scope), priced.id)).rejects.toMatchObject({
      message: 'This product cannot be deleted because it has one or more user-created prices.',
    });
    await service.deleteProduct(originOf(scope), unused.id);
    expect(await products.get(scope, unused.id)).toBeUndefined();
    expect(written.at(-1)!.snapshotEvents[0]).toMatchObject({ type: 'product.deleted', object: { id: unused.id } });
    await expect(service.deleteProduct(originOf(scope), unused.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.deleteProduct(originOf(other), priced.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses the delete when a price is created between its read and its write (the version moved)', async () => {
    const { service, catalogue, products } = setup();
    const product = await gold(service);
    const commit = catalogue.commit;
    let raced = false;
    catalogue.commit = async (change, outbox) => {
      if (change.deletedProduct && !raced) {
        raced = true;
        await service.createPrice(originOf(scope), priceOf(product.id));
      }
      return commit(change, outbox);
    };
    await expect(service.deleteProduct(originOf(scope), product.id)).rejects.toMatchObject({ code: 'product_has_prices' });
    expect(await products.get(scope, product.id)).toBeDefined();
  });

  it('looks for prices of a product stored before prices were counted', async () => {
    const { service, products, prices } = setup();
    const legacy = await gold(service);
    const price = await service.createPrice(originOf(scope), priceOf(legacy.id));
    products.items.set(`${scope.accountId}|false|${legacy.id}`, { ...(await products.get(scope, legacy.id))!, priceCount: null });
    await expect(service.deleteProduct(originOf(scope), legacy.id)).rejects.toMatchObject({ code: 'product_has_prices' });
    prices.items.delete(`${scope.accountId}|false|${price.id}`);
    await expect(service.deleteProduct(originOf(scope), legacy.id)).resolves.toMatchObject({ id: legacy.id });
  });

  it('updates a price: active, metadata, nickname, tax_behavior only from unspecified; emits price.updated', async () => {
    const { service, written } = setup();
    const product = await gold(service);
    const price = await service.createPrice(originOf(scope), priceOf(product.id, { nickname: 'old' }));
    const updated = await service.updatePrice(
      originOf(scope),
      price.id,
      updatePriceParams.parse({ active: 'false', nickname: '', metadata: { a: '1' }, tax_behavior: 'exclusive' }),
    );
    expect(updated).toMatchObject({ active: false, nickname: null, metadata: { a: '1' }, taxBehavior: 'exclusive', version: 2 });
    expect(written.at(-1)!.snapshotEvents[0]).toMatchObject({
      type: 'price.updated',
      previousAttributes: { active: true, nickname: 'old', metadata: {}, tax_behavior: 'unspecified' },
    });
    await expect(service.updatePrice(originOf(scope), price.id, updatePriceParams.parse({ tax_behavior: 'inclusive' }))).rejects.toMatchObject({
      param: 'tax_behavior',
    });
    await expect(service.updatePrice(originOf(scope), price.id, updatePriceParams.parse({ tax_behavior: 'exclusive' }))).resolves.toBeDefined();
    await expect(service.updatePrice(originOf(other), price.id, updatePriceParams.parse({ active: true }))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('keeps lookup keys unique: a taken key is refused, transfer_lookup_key moves it and tells the loser', async () => {
    const { service, catalogue, written } = setup();
    const product = await gold(service);
    const first = await service.createPrice(originOf(scope), priceOf(product.id, { lookup_key: 'standard' }));
    await expect(service.createPrice(originOf(scope), priceOf(product.id, { lookup_key: 'standard' }))).rejects.toMatchObject({
      param: 'lookup_key',
      message: expect.stringContaining(`A price (\`${first.id}\`) already uses that lookup key.`),
    });
    const second = await service.createPrice(originOf(scope), priceOf(product.id, { lookup_key: 'standard', transfer_lookup_key: true }));
    expect(await catalogue.lookupKeyHolder(scope, 'standard')).toBe(second.id);
    expect(await service.retrievePrice(scope, first.id)).toMatchObject({ lookupKey: null, version: 2 });
    expect(written.at(-1)!.snapshotEvents.map((event) => [event.type, (event.object as { id: string }).id])).toEqual([
      ['price.created', second.id],
      ['price.updated', first.id],
    ]);

    // On update: renaming frees the old key, '' releases it, and a transfer takes it back.
    await service.updatePrice(originOf(scope), second.id, updatePriceParams.parse({ lookup_key: 'premium' }));
    expect(await catalogue.lookupKeyHolder(scope, 'standard')).toBeUndefined();
    await expect(service.updatePrice(originOf(scope), first.id, updatePriceParams.parse({ lookup_key: 'premium' }))).rejects.toMatchObject({
      param: 'lookup_key',
    });
    await service.updatePrice(originOf(scope), first.id, updatePriceParams.parse({ lookup_key: 'premium', transfer_lookup_key: 'true' }));
    expect(await service.retrievePrice(scope, second.id)).toMatchObject({ lookupKey: null });
    await service.updatePrice(originOf(scope), first.id, updatePriceParams.parse({ lookup_key: '' }));
    expect(catalogue.lookupKeys.size).toBe(0);
    // Another owner's key of the same name is its own.
    const theirs = await service.createProduct(originOf(other), createProductParams.parse({ name: 'Theirs' }));
    await expect(
      service.createPrice(originOf(other), createPriceParams.parse({ product: theirs.id, currency: 'usd', unit_amount: 1, lookup_key: 'premium' })),
    ).resolves.toBeDefined();
  });

  it('lists prices by lookup keys from the keys’ holders, with the other filters and cursors', async () => {
    const { service } = setup();
    const product = await gold(service);
    const a = await service.createPrice(originOf(scope), priceOf(product.id, { lookup_key: 'a' }));
    const b = await service.createPrice(originOf(scope), createPriceParams.parse({ product: product.id, currency: 'eur', unit_amount: 1, lookup_key: 'b' }));
    await service.createPrice(originOf(scope), priceOf(product.id, { lookup_key: 'c' }));
    const page = { limit: 10 };
    const ids = async (keys: string[], where: Record<string, unknown> = {}, request: { limit: number; startingAfter?: string; endingBefore?: string } = page) =>
      (await service.listPrices(scope, request, where, keys)).items.map((price) => price.id);

    expect(await ids(['a', 'b', 'missing', 'a'])).toEqual([b.id, a.id]);
    expect(await ids(['a', 'b'], { currency: 'usd' })).toEqual([a.id]);
    expect(await service.listPrices(scope, { limit: 1 }, {}, ['a', 'b'])).toEqual({ items: [b], hasMore: true });
    expect(await ids(['a', 'b'], {}, { limit: 10, startingAfter: b.id })).toEqual([a.id]);
    expect(await ids(['a', 'b'], {}, { limit: 10, endingBefore: a.id })).toEqual([b.id]);
    expect((await service.listPrices(other, page, {}, ['a'])).items).toEqual([]);
    expect(listPricesParams.safeParse({ lookup_keys: Array.from({ length: 11 }, (_, i) => `k${i}`) }).success).toBe(false);
  });

  it('keeps currency_options per currency, shown only when expanded, replaced on update', async () => {
    const services = setup();
    const { service } = services;
    const product = await gold(service);
    const price = await service.createPrice(
      originOf(scope),
      priceOf(product.id, {
        tax_behavior: 'exclusive',
        currency_options: { EUR: { unit_amount: 90 }, gbp: { unit_amount_decimal: '80.5', tax_behavior: 'inclusive' } },
      }),
    );
    expect(price.currencyOptions).toEqual({
      eur: { unitAmount: 90, unitAmountDecimal: '90', tiers: null, taxBehavior: 'exclusive' },
      gbp: { unitAmount: null, unitAmountDecimal: '80.5', tiers: null, taxBehavior: 'inclusive' },
    });
    expect(serializePrice(price)).not.toHaveProperty('currency_options');
    const { catalogue } = services;
    const expand = expander(expansionLoaders({ ...noExpansionPorts, products: catalogue.products, prices: catalogue.prices }));
    const plan = retrievePriceParams.parse({ expand: ['currency_options', 'product'] }).expand!;
    expect(await expand(scope, serializePrice(price), plan)).toMatchObject({
      product: { id: product.id, object: 'product' },
      currency_options: {
        usd: { unit_amount: 100, unit_amount_decimal: '100', tax_behavior: 'exclusive', custom_unit_amount: null },
        eur: { unit_amount: 90 },
        gbp: { unit_amount: null, unit_amount_decimal: '80.5', tax_behavior: 'inclusive' },
      },
    });
    // An update of only the options shows them changed in price.updated (events show currency_options, which they cannot expand)
    const { written } = services;
    const reamounted = await service.updatePrice(
      originOf(scope),
      price.id,
      updatePriceParams.parse({ currency_options: { eur: { unit_amount: 95 }, gbp: { unit_amount_decimal: '80.5' } } }),
    );
    const event = written.at(-1)!.snapshotEvents[0]!;
    expect(event.object).toMatchObject({ currency_options: { usd: { unit_amount: 100 }, eur: { unit_amount: 95 }, gbp: { tax_behavior: 'inclusive' } } });
    expect(event.previousAttributes).toEqual({ currency_options: serializePrice(price, { currencyOptions: true }).currency_options });
    // An option's tax_behavior is set once, like the price's: kept when not given, another refused
    expect(reamounted.currencyOptions.gbp!.taxBehavior).toBe('inclusive');
    await expect(
      service.updatePrice(originOf(scope), price.id, updatePriceParams.parse({ currency_options: { gbp: { unit_amount: 1, tax_behavior: 'exclusive' } } })),
    ).rejects.toMatchObject({ param: 'currency_options[gbp][tax_behavior]' });

    const replaced = await service.updatePrice(originOf(scope), price.id, updatePriceParams.parse({ currency_options: { jpy: { unit_amount: 15 } } }));
    expect(Object.keys(replaced.currencyOptions)).toEqual(['jpy']);
    expect((await service.updatePrice(originOf(scope), price.id, updatePriceParams.parse({ currency_options: '' }))).currencyOptions).toEqual({});

    const refused = [
      [{ usd: { unit_amount: 1 } }, 'currency_options[usd]'],
      [{ eur: {} }, 'currency_options[eur][unit_amount]'],
      [{ eur: { unit_amount: 1, unit_amount_decimal: '1' } }, 'currency_options[eur][unit_amount_decimal]'],
      [{ eur: { unit_amount: 1, tiers: [{ up_to: 'inf' }] } }, 'currency_options[eur][tiers]'],
    ] as const;
    for (const [options, param] of refused) {
      await expect(service.createPrice(originOf(scope), priceOf(product.id, { currency_options: options }))).rejects.toMatchObject({ param });
    }
  });
});
