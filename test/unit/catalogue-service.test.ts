import { describe, expect, it } from 'vitest';
import type { Price, Product } from '#shared/catalogue/catalogue.ts';
import { createPriceParams, createProductParams } from '#shared/catalogue/schemas.ts';
import { catalogueService } from '#shared/catalogue/service.ts';
import { InvalidRequestError, NotFoundError } from '#shared/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../support/fakes.ts';

const scope: Scope = { accountId: 'acct_catalogue', livemode: false };
const other: Scope = { accountId: 'acct_other', livemode: false };

function setup() {
  const products = memoryOwnedStore<Product>();
  const prices = memoryOwnedStore<Price>();
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const service = catalogueService({ products, prices, events: recorded.events, clock: () => now++ });
  return { service, products, prices, written: recorded.written };
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

  it('creates a recurring price with a new product from product_data: two objects, two events', async () => {
    const { service, products, written } = setup();
    const price = await service.createPrice(
      originOf(scope),
      createPriceParams.parse({ product_data: { name: 'Silver' }, currency: 'eur', unit_amount: 500, recurring: { interval: 'month' } }),
    );
    expect(price).toMatchObject({ type: 'recurring', recurring: { interval: 'month', intervalCount: 1 }, currency: 'eur' });
    expect((await products.get(scope, price.product))?.name).toBe('Silver');
    expect(written.map((outbox) => outbox.snapshotEvents[0]!.type)).toEqual(['product.created', 'price.created']);
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
});
