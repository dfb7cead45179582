import { InvalidRequestError, NotFoundError } from '#shared/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin, Outbox } from '#shared/events/event.ts';
import { mergeMetadata } from '#shared/metadata.ts';
import type { Page, PageRequest } from '#shared/paging.ts';
import { newId } from '#shared/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Price, PriceRepository, Product, ProductRepository } from './catalogue.ts';
import type { CreatePriceParams, CreateProductParams } from './schemas.ts';
import { serializePrice, serializeProduct } from './serializer.ts';

export interface CatalogueServicePorts {
  products: ProductRepository;
  prices: PriceRepository;
  events: EventEmitter;
  clock?: () => number;
}

type ProductFields = Omit<CreateProductParams, 'expand'>;

const productCreated = (product: Product): EventInput => snapshotInput('product.created', serializeProduct(product), `/v1/products/${product.id}`);
const priceCreated = (price: Price): EventInput => snapshotInput('price.created', serializePrice(price), `/v1/prices/${price.id}`);

/** The integer minor units of a decimal amount that has no fraction (`12`, `12.00`), else null. */
export const wholeAmount = (decimal: string): number | null => (/^\d+(\.0+)?$/.test(decimal) ? Math.trunc(Number(decimal)) : null);

/** `unit_amount` or `unit_amount_decimal` (not both, one required), kept exactly as a decimal string. */
function amountOf(params: CreatePriceParams): { unitAmount: number | null; unitAmountDecimal: string } {
  if (params.unit_amount !== undefined && params.unit_amount_decimal !== undefined) {
    throw new InvalidRequestError(
      'You may only specify one of these parameters: unit_amount, unit_amount_decimal.',
      'parameter_invalid',
      'unit_amount_decimal',
    );
  }
  if (params.unit_amount !== undefined) return { unitAmount: params.unit_amount, unitAmountDecimal: String(params.unit_amount) };
  if (params.unit_amount_decimal !== undefined) {
    return { unitAmount: wholeAmount(params.unit_amount_decimal), unitAmountDecimal: params.unit_amount_decimal };
  }
  throw new InvalidRequestError('Missing required param: unit_amount.', 'parameter_missing', 'unit_amount');
}

/** v1 products and prices: the small catalogue subscriptions are made of. */
export function catalogueService({ products, prices, events, clock = Date.now }: CatalogueServicePorts) {
  const newProduct = (scope: Scope, params: ProductFields, now: number): Product => ({
    id: newId('prod', now),
    scope,
    version: 1,
    created: now,
    updated: now,
    name: params.name,
    active: params.active ?? true,
    description: params.description ?? null,
    metadata: params.metadata ? mergeMetadata({}, params.metadata) : {},
    unitLabel: params.unit_label ?? null,
    url: params.url ?? null,
    statementDescriptor: params.statement_descriptor ?? null,
    taxCode: params.tax_code ?? null,
    images: params.images ?? [],
    defaultPrice: null,
  });

  async function product(scope: Scope, id: string): Promise<Product> {
    const found = await products.get(scope, id);
    if (!found) throw new NotFoundError('product', id);
    return found;
  }

  async function price(scope: Scope, id: string): Promise<Price> {
    const found = await prices.get(scope, id);
    if (!found) throw new NotFoundError('price', id);
    return found;
  }

  /** Writes a new object with its created event, then queues the event's deliveries. */
  async function store<T>(origin: EventOrigin, created: T, event: EventInput, write: (outbox: Outbox) => Promise<unknown>): Promise<T> {
    const outbox = events.prepare(origin, [event]);
    await write(outbox);
    await events.dispatch(outbox);
    return created;
  }

  return {
    createProduct(origin: EventOrigin, params: CreateProductParams): Promise<Product> {
      const created = newProduct(origin.scope, params, clock());
      return store(origin, created, productCreated(created), (outbox) => products.create(created, { outbox }));
    },

    retrieveProduct: product,

    listProducts(scope: Scope, page: PageRequest, active?: boolean): Promise<Page<Product>> {
      return products.list(scope, page, active === undefined ? undefined : { active });
    },

    /** A price of an existing product, or of a new one made from `product_data` (both created together). */
    async createPrice(origin: EventOrigin, params: CreatePriceParams): Promise<Price> {
      if ((params.product === undefined) === (params.product_data === undefined)) {
        throw new InvalidRequestError('Exactly one of product and product_data is required.', 'parameter_missing', 'product');
      }
      const now = clock();
      const amount = amountOf(params);
      const made = params.product_data ? newProduct(origin.scope, params.product_data, now) : undefined;
      const owner =
        made ??
        (await product(origin.scope, params.product!).catch(() => {
          throw new InvalidRequestError(`No such product: '${params.product}'`, 'resource_missing', 'product');
        }));
      const created: Price = {
        id: newId('price', now),
        scope: origin.scope,
        version: 1,
        created: now,
        product: owner.id,
        active: params.active ?? true,
        currency: params.currency,
        ...amount,
        recurring: params.recurring ? { interval: params.recurring.interval, intervalCount: params.recurring.interval_count ?? 1 } : null,
        type: params.recurring ? 'recurring' : 'one_time',
        nickname: params.nickname ?? null,
        lookupKey: params.lookup_key ?? null,
        taxBehavior: params.tax_behavior ?? 'unspecified',
        metadata: params.metadata ? mergeMetadata({}, params.metadata) : {},
      };
      if (made) await store(origin, made, productCreated(made), (outbox) => products.create(made, { outbox }));
      return store(origin, created, priceCreated(created), (outbox) => prices.create(created, { outbox }));
    },

    retrievePrice: price,

    listPrices(scope: Scope, page: PageRequest, where: Record<string, unknown>): Promise<Page<Price>> {
      return prices.list(scope, page, where);
    },
  };
}
