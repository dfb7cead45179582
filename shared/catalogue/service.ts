import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import { pageOf, type Page, type PageRequest, type TimeRange } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { MeterRepository } from '#shared/meters/meter.ts';
import type {
  BillingScheme,
  CatalogueChange,
  CatalogueRepository,
  CurrencyOption,
  LookupKeyMove,
  Price,
  Product,
  Recurring,
  TaxBehavior,
  Tier,
} from './catalogue.ts';
import type { CreatePriceParams, CreateProductParams, CurrencyOptionParams, TierParams, UpdatePriceParams, UpdateProductParams } from './schemas.ts';
import { serializePrice, serializeProduct } from './serializer.ts';

export interface CatalogueServicePorts {
  catalogue: CatalogueRepository;
  events: EventEmitter;
  /** The meters a metered price may name (in the price's account and mode). */
  meters: Pick<MeterRepository, 'get'>;
  clock?: () => number;
}

type ProductFields = Omit<CreateProductParams, 'expand'>;

const productEvent = (type: string, product: Product, before?: Product): EventInput =>
  snapshotInput(type, serializeProduct(product), `/v1/products/${product.id}`, before ? serializeProduct(before) : undefined);
/**
 * A price event shows `currency_options` (which a GET shows only when expanded): an event cannot be
 * expanded, and an update that changes only the options would otherwise show no change at all.
 */
const priceEvent = (type: string, price: Price, before?: Price): EventInput =>
  snapshotInput(
    type,
    serializePrice(price, { currencyOptions: true }),
    `/v1/prices/${price.id}`,
    before ? serializePrice(before, { currencyOptions: true }) : undefined,
  );

/** The integer minor units of a decimal amount that has no fraction (`12`, `12.00`), else null. */
export const wholeAmount = (decimal: string): number | null => (/^\d+(\.0+)?$/.test(decimal) ? Math.trunc(Number(decimal)) : null);

/** `unit_amount` or `unit_amount_decimal` (not both, one required), kept exactly as a decimal string; `name` spells a field's parameter. */
function amountOf(
  params: { unit_amount?: number; unit_amount_decimal?: string },
  name: (field: string) => string = (field) => field,
): { unitAmount: number | null; unitAmountDecimal: string } {
  if (params.unit_amount !== undefined && params.unit_amount_decimal !== undefined) {
    throw new InvalidRequestError(
      `You may only specify one of these parameters: ${name('unit_amount')}, ${name('unit_amount_decimal')}.`,
      'parameter_invalid',
      name('unit_amount_decimal'),
    );
  }
  if (params.unit_amount !== undefined) return { unitAmount: params.unit_amount, unitAmountDecimal: String(params.unit_amount) };
  if (params.unit_amount_decimal !== undefined) {
    return { unitAmount: wholeAmount(params.unit_amount_decimal), unitAmountDecimal: params.unit_amount_decimal };
  }
  throw new InvalidRequestError(`Missing required param: ${name('unit_amount')}.`, 'parameter_missing', name('unit_amount'));
}

const invalidParam = (message: string, param: string, code = 'parameter_invalid') => new InvalidRequestError(message, code, param);

/** One of `integer` and `decimal` (not both), as an exact decimal string and its whole form; null when neither is given. */
function decimalOf(integer: number | undefined, decimal: string | undefined, names: [string, string]): { whole: number | null; decimal: string | null } {
  if (integer !== undefined && decimal !== undefined) throw invalidParam(`You may only specify one of these parameters: ${names.join(', ')}.`, names[1]);
  if (integer !== undefined) return { whole: integer, decimal: String(integer) };
  if (decimal !== undefined) return { whole: wholeAmount(decimal), decimal };
  return { whole: null, decimal: null };
}

/**
 * `tiers` as the reference checks them: each with an amount (unit, flat or both; one form of each), `up_to`
 * strictly ascending, and only the last one (and the last one always) `inf`. `at` spells the parameter
 * (`tiers`, `currency_options[eur][tiers]`).
 */
function tiersOf(given: readonly TierParams[], at: string): Tier[] {
  let below = 0;
  return given.map((tier, index) => {
    const param = `${at}[${index}]`;
    const last = index === given.length - 1;
    const unit = decimalOf(tier.unit_amount, tier.unit_amount_decimal, [`${param}[unit_amount]`, `${param}[unit_amount_decimal]`]);
    const flat = decimalOf(tier.flat_amount, tier.flat_amount_decimal, [`${param}[flat_amount]`, `${param}[flat_amount_decimal]`]);
    if (unit.decimal === null && flat.decimal === null) throw invalidParam('An entry in the tiers array is missing an amount.', param, 'parameter_missing');
    if (tier.up_to === 'inf' && !last) throw invalidParam(`Only the last tier can have up_to=inf; ${param}[up_to] is not the last tier.`, `${param}[up_to]`);
    if (tier.up_to !== 'inf' && last) throw invalidParam(`The last tier must have up_to=inf, so that every quantity falls in a tier.`, `${param}[up_to]`);
    if (tier.up_to !== 'inf') {
      if (tier.up_to <= below)
        throw invalidParam(`The tiers' up_to must be strictly ascending: ${param}[up_to] (${tier.up_to}) is not above ${below}.`, `${param}[up_to]`);
      below = tier.up_to;
    }
    return {
      upTo: tier.up_to === 'inf' ? null : tier.up_to,
      unitAmount: unit.whole,
      unitAmountDecimal: unit.decimal,
      flatAmount: flat.whole,
      flatAmountDecimal: flat.decimal,
    };
  });
}

/** How a price's amount is given: a unit amount (per_unit, possibly transformed) or tiers in a mode (tiered), as the reference checks them. */
function schemeOf(params: CreatePriceParams): Pick<Price, 'unitAmount' | 'unitAmountDecimal' | 'billingScheme' | 'tiersMode' | 'tiers' | 'transformQuantity'> {
  const scheme: BillingScheme = params.billing_scheme ?? 'per_unit';
  if (scheme === 'per_unit') {
    if (params.tiers !== undefined) throw invalidParam('tiers requires billing_scheme=tiered.', 'tiers');
    if (params.tiers_mode !== undefined) throw invalidParam('tiers_mode requires billing_scheme=tiered.', 'tiers_mode');
    const transform = params.transform_quantity;
    return {
      ...amountOf(params),
      billingScheme: 'per_unit',
      tiersMode: null,
      tiers: null,
      transformQuantity: transform ? { divideBy: transform.divide_by, round: transform.round } : null,
    };
  }
  if (params.transform_quantity !== undefined)
    throw invalidParam('You may only specify one of these parameters: tiers, transform_quantity.', 'transform_quantity');
  for (const field of ['unit_amount', 'unit_amount_decimal'] as const) {
    if (params[field] !== undefined) throw invalidParam(`${field} cannot be used with billing_scheme=tiered: the amounts are the tiers'.`, field);
  }
  if (params.tiers === undefined) throw invalidParam('Missing required param: tiers.', 'tiers', 'parameter_missing');
  if (params.tiers_mode === undefined) throw invalidParam('Missing required param: tiers_mode.', 'tiers_mode', 'parameter_missing');
  return {
    unitAmount: null,
    unitAmountDecimal: null,
    billingScheme: 'tiered',
    tiersMode: params.tiers_mode,
    tiers: tiersOf(params.tiers, 'tiers'),
    transformQuantity: null,
  };
}

/**
 * `currency_options`: one amount per further currency, given as the price's own is: a unit amount for a
 * per_unit price, tiers (in the price's `tiers_mode`) for a tiered one. The price's own currency is its own
 * amount, not an option; customer-chosen amounts are not modelled here.
 */
function currencyOptionsOf(
  given: Record<string, CurrencyOptionParams>,
  currency: string,
  taxBehavior: TaxBehavior,
  scheme: BillingScheme,
  current: Record<string, CurrencyOption> = {},
): Record<string, CurrencyOption> {
  const options: Record<string, CurrencyOption> = {};
  for (const [code, option] of Object.entries(given)) {
    const at = `currency_options[${code}]`;
    const lower = code.toLowerCase();
    if (lower === currency) {
      throw new InvalidRequestError(`${at} repeats the price's own currency (${currency}), whose amount is the price's unit_amount.`, 'parameter_invalid', at);
    }
    if (options[lower]) throw new InvalidRequestError(`${at} names the currency ${lower} a second time.`, 'parameter_invalid', at);
    if (option.custom_unit_amount !== undefined) {
      throw invalidParam(`${at}[custom_unit_amount] is not supported here: customer-chosen amounts are not modelled.`, `${at}[custom_unit_amount]`);
    }
    if (scheme === 'per_unit' && option.tiers !== undefined) throw invalidParam(`${at}[tiers] requires billing_scheme=tiered.`, `${at}[tiers]`);
    // An option's tax_behavior follows the price's own rule: set once, from unspecified (kept when not given).
    const was = current[lower]?.taxBehavior ?? 'unspecified';
    if (option.tax_behavior !== undefined && option.tax_behavior !== was && was !== 'unspecified') {
      throw new InvalidRequestError(
        `The tax_behavior of the ${lower} option cannot be changed once it is ${was}; only an option whose tax_behavior is unspecified can be given one.`,
        'parameter_invalid',
        `${at}[tax_behavior]`,
      );
    }
    const behavior = option.tax_behavior ?? (was === 'unspecified' ? taxBehavior : was);
    if (scheme === 'tiered') {
      for (const field of ['unit_amount', 'unit_amount_decimal'] as const) {
        if (option[field] !== undefined) throw invalidParam(`${at}[${field}] cannot be used with billing_scheme=tiered: give ${at}[tiers].`, `${at}[${field}]`);
      }
      if (option.tiers === undefined) throw invalidParam(`Missing required param: ${at}[tiers].`, `${at}[tiers]`, 'parameter_missing');
      options[lower] = { unitAmount: null, unitAmountDecimal: null, tiers: tiersOf(option.tiers, `${at}[tiers]`), taxBehavior: behavior };
    } else {
      options[lower] = { ...amountOf(option, (field) => `${at}[${field}]`), tiers: null, taxBehavior: behavior };
    }
  }
  return options;
}

const lookupKeyTaken = (holder: string) =>
  new InvalidRequestError(
    `A price (\`${holder}\`) already uses that lookup key. Pass transfer_lookup_key=true to move it to this price.`,
    'lookup_key_taken',
    'lookup_key',
  );

/** v1 products and prices: the small catalogue subscriptions are made of. */
export function catalogueService({ catalogue, events, meters, clock = systemClock }: CatalogueServicePorts) {
  const { products, prices } = catalogue;

  /**
   * A price's recurring terms. A metered price needs its meter, which must exist in the price's account and
   * mode and be active; a licensed price takes none.
   */
  async function recurringOf(scope: Scope, params: NonNullable<CreatePriceParams['recurring']>): Promise<Recurring> {
    const usageType = params.usage_type ?? 'licensed';
    const cadence = { interval: params.interval, intervalCount: params.interval_count ?? 1 };
    if (usageType === 'licensed') {
      if (params.meter !== undefined)
        throw new InvalidRequestError(
          'A meter can only be set on a price whose `recurring[usage_type]` is `metered`.',
          'parameter_invalid',
          'recurring[meter]',
        );
      return { ...cadence, usageType, meter: null };
    }
    if (params.meter === undefined)
      throw new InvalidRequestError(
        'Metered prices must be backed by a meter: pass `recurring[meter]` with the ID of an active billing meter.',
        'parameter_missing',
        'recurring[meter]',
      );
    const meter = await meters.get(scope, params.meter);
    if (!meter) throw new InvalidRequestError(`No such billing meter: '${params.meter}'`, 'resource_missing', 'recurring[meter]');
    if (meter.status !== 'active')
      throw new InvalidRequestError(
        `The billing meter ${meter.id} is inactive; a price can only use an active meter.`,
        'parameter_invalid',
        'recurring[meter]',
      );
    return { ...cadence, usageType, meter: meter.id };
  }

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
    marketingFeatures: params.marketing_features ?? [],
    packageDimensions: params.package_dimensions ?? null,
    shippable: params.shippable ?? null,
    priceCount: 0,
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

  /**
   * Writes one change with its events, then queues their deliveries; undefined when a condition of the
   * change failed (someone wrote first: the caller reads again).
   */
  async function commit<T>(origin: EventOrigin, result: T, change: Omit<CatalogueChange, 'scope'>, inputs: EventInput[]): Promise<T | undefined> {
    const outbox = events.prepare(origin, inputs);
    if (!(await catalogue.commit({ scope: origin.scope, ...change }, outbox))) return undefined;
    await events.dispatch(outbox);
    return result;
  }

  /**
   * Who gives up `key` when `priceId` takes it: nobody (free), or the price holding it, which loses it only
   * with `transfer` (it is changed in the same transaction, and told with its own `price.updated`).
   */
  async function takeLookupKey(
    scope: Scope,
    key: string,
    holder: string | undefined,
    priceId: string,
    transfer: boolean,
  ): Promise<{ move: LookupKeyMove; loser?: { before: Price; after: Price } }> {
    if (holder === undefined || holder === priceId) return { move: { key, from: holder ?? null, to: priceId } };
    if (!transfer) throw lookupKeyTaken(holder);
    const before = await prices.get(scope, holder);
    const loser = before && before.lookupKey === key ? { before, after: { ...before, lookupKey: null, version: before.version + 1 } } : undefined;
    return { move: { key, from: holder, to: priceId }, ...(loser ? { loser } : {}) };
  }

  return {
    createProduct(origin: EventOrigin, params: CreateProductParams): Promise<Product> {
      return withOptimisticRetries(() => {
        const created = newProduct(origin.scope, params, clock());
        return commit(origin, created, { newProducts: [created] }, [productEvent('product.created', created)]);
      });
    },

    retrieveProduct: product,

    listProducts(scope: Scope, page: PageRequest, active?: boolean, created?: TimeRange): Promise<Page<Product>> {
      return products.list(scope, page, active === undefined ? undefined : { active }, created);
    },

    /** Changes what is given; `default_price` must be an active price of the product's own. Emits `product.updated`. */
    updateProduct(origin: EventOrigin, id: string, params: UpdateProductParams): Promise<Product> {
      return withOptimisticRetries(async () => {
        const [current, defaultPrice] = await Promise.all([
          product(origin.scope, id),
          params.default_price === undefined ? undefined : prices.get(origin.scope, params.default_price),
        ]);
        if (params.default_price !== undefined && defaultPrice?.product !== id) {
          throw new InvalidRequestError(
            defaultPrice
              ? `The price ${params.default_price} belongs to another product; a product's default_price must be one of its own prices.`
              : `No such price: '${params.default_price}'`,
            defaultPrice ? 'parameter_invalid' : 'resource_missing',
            'default_price',
          );
        }
        if (defaultPrice && !defaultPrice.active) {
          throw new InvalidRequestError(
            `The price ${defaultPrice.id} is archived (active=false); a product's default_price must be an active price. Activate it first.`,
            'parameter_invalid',
            'default_price',
          );
        }
        const pick = <V>(value: V | undefined, fallback: V) => (value === undefined ? fallback : value);
        const next: Product = {
          ...current,
          version: current.version + 1,
          updated: clock(),
          name: pick(params.name, current.name),
          active: pick(params.active, current.active),
          description: pick(params.description, current.description),
          images: params.images === undefined ? current.images : (params.images ?? []),
          marketingFeatures: params.marketing_features === undefined ? current.marketingFeatures : (params.marketing_features ?? []),
          metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
          packageDimensions: pick(params.package_dimensions, current.packageDimensions),
          shippable: pick(params.shippable, current.shippable),
          statementDescriptor: pick(params.statement_descriptor, current.statementDescriptor),
          taxCode: pick(params.tax_code, current.taxCode),
          unitLabel: pick(params.unit_label, current.unitLabel),
          url: pick(params.url, current.url),
          defaultPrice: pick(params.default_price, current.defaultPrice),
        };
        // The default price must still be active as read: an archive racing this update makes it start over.
        return commit(origin, next, { changedProducts: [next], unchangedPrices: defaultPrice ? [defaultPrice] : [] }, [
          productEvent('product.updated', next, current),
        ]);
      });
    },

    /**
     * Deletes a product no price uses, as the reference does, and emits `product.deleted`. The delete is
     * conditional on the version read, which every new price of the product moves: a price made meanwhile
     * makes it read again and refuse.
     */
    deleteProduct(origin: EventOrigin, id: string): Promise<Product> {
      return withOptimisticRetries(async () => {
        const current = await product(origin.scope, id);
        // Products stored before prices were counted on them have no count: their prices are looked for.
        const priced = current.priceCount === null ? (await prices.list(origin.scope, { limit: 1 }, { product: id })).items.length > 0 : current.priceCount > 0;
        if (priced) throw new InvalidRequestError('This product cannot be deleted because it has one or more user-created prices.', 'product_has_prices');
        return commit(origin, current, { deletedProduct: current }, [productEvent('product.deleted', current)]);
      });
    },

    /**
     * A price of an existing product, or of a new one made from `product_data` (both written in one
     * transaction); either way counted on its product. A `lookup_key` is unique per owner and mode: one
     * already held is refused unless `transfer_lookup_key` moves it here.
     */
    async createPrice(origin: EventOrigin, params: CreatePriceParams): Promise<Price> {
      if ((params.product === undefined) === (params.product_data === undefined)) {
        throw new InvalidRequestError('Exactly one of product and product_data is required.', 'parameter_missing', 'product');
      }
      const amount = schemeOf(params);
      const recurring = params.recurring ? await recurringOf(origin.scope, params.recurring) : null;
      const taxBehavior = params.tax_behavior ?? 'unspecified';
      const currencyOptions = currencyOptionsOf(params.currency_options ?? {}, params.currency, taxBehavior, amount.billingScheme);
      return withOptimisticRetries(async () => {
        const now = clock();
        const [owner, holder] = await Promise.all([
          params.product === undefined ? undefined : products.get(origin.scope, params.product),
          params.lookup_key === undefined ? undefined : catalogue.lookupKeyHolder(origin.scope, params.lookup_key),
        ]);
        if (params.product !== undefined && !owner) {
          throw new InvalidRequestError(`No such product: '${params.product}'`, 'resource_missing', 'product');
        }
        const made = params.product_data ? { ...newProduct(origin.scope, params.product_data, now), priceCount: 1 } : undefined;
        const created: Price = {
          id: newId('price', now),
          scope: origin.scope,
          version: 1,
          created: now,
          product: (made ?? owner)!.id,
          active: params.active ?? true,
          currency: params.currency,
          ...amount,
          recurring,
          type: params.recurring ? 'recurring' : 'one_time',
          nickname: params.nickname ?? null,
          lookupKey: params.lookup_key ?? null,
          taxBehavior,
          metadata: params.metadata ? mergeMetadata({}, params.metadata) : {},
          currencyOptions,
        };
        const taken =
          params.lookup_key === undefined
            ? undefined
            : await takeLookupKey(origin.scope, params.lookup_key, holder, created.id, params.transfer_lookup_key ?? false);
        return commit(
          origin,
          created,
          {
            newProducts: made ? [made] : [],
            newPrices: [created],
            changedPrices: taken?.loser ? [taken.loser.after] : [],
            lookupKeys: taken ? [taken.move] : [],
          },
          [
            ...(made ? [productEvent('product.created', made)] : []),
            priceEvent('price.created', created),
            ...(taken?.loser ? [priceEvent('price.updated', taken.loser.after, taken.loser.before)] : []),
          ],
        );
      });
    },

    retrievePrice: price,

    /**
     * Changes what is given and emits `price.updated`. `tax_behavior` can be set once, from `unspecified`,
     * as the reference allows; `currency_options` replaces the options (`''` removes them all).
     */
    updatePrice(origin: EventOrigin, id: string, params: UpdatePriceParams): Promise<Price> {
      return withOptimisticRetries(async () => {
        const newKey = params.lookup_key === undefined ? undefined : params.lookup_key;
        const [current, holder] = await Promise.all([price(origin.scope, id), newKey ? catalogue.lookupKeyHolder(origin.scope, newKey) : undefined]);
        // Archiving reads the product (one more get, only then): its default price cannot be archived, as in the reference.
        const owner = params.active === false && current.active ? await products.get(origin.scope, current.product) : undefined;
        if (owner?.defaultPrice === current.id) {
          throw new InvalidRequestError('This price cannot be archived because it is the default price of its product.', 'parameter_invalid', 'active');
        }
        if (params.tax_behavior !== undefined && params.tax_behavior !== current.taxBehavior && current.taxBehavior !== 'unspecified') {
          throw new InvalidRequestError(
            `The tax_behavior of a price cannot be changed once it is ${current.taxBehavior}; only a price whose tax_behavior is unspecified can be given one.`,
            'parameter_invalid',
            'tax_behavior',
          );
        }
        const taxBehavior = params.tax_behavior ?? current.taxBehavior;
        const next: Price = {
          ...current,
          version: current.version + 1,
          active: params.active ?? current.active,
          metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
          nickname: params.nickname === undefined ? current.nickname : params.nickname,
          taxBehavior,
          currencyOptions:
            params.currency_options === undefined
              ? current.currencyOptions
              : currencyOptionsOf(params.currency_options ?? {}, current.currency, taxBehavior, current.billingScheme, current.currencyOptions),
          lookupKey: newKey === undefined ? current.lookupKey : newKey || null,
        };
        const moves: LookupKeyMove[] = [];
        let loser: { before: Price; after: Price } | undefined;
        if (next.lookupKey !== current.lookupKey) {
          if (current.lookupKey !== null) moves.push({ key: current.lookupKey, from: id, to: null });
          if (next.lookupKey !== null) {
            const taken = await takeLookupKey(origin.scope, next.lookupKey, holder, id, params.transfer_lookup_key ?? false);
            moves.push(taken.move);
            loser = taken.loser;
          }
        }
        // An archive relies on the product as read (not making it its default meanwhile).
        const unchangedProducts = owner ? [owner] : [];
        return commit(origin, next, { changedPrices: [next, ...(loser ? [loser.after] : [])], lookupKeys: moves, unchangedProducts }, [
          priceEvent('price.updated', next, current),
          ...(loser ? [priceEvent('price.updated', loser.after, loser.before)] : []),
        ]);
      });
    },

    /**
     * Prices newest first, with the equality filters of `where` (stored fields), created in `created`. With `lookupKeys` (up to
     * 10), only the prices holding those keys, read from the keys' claims (one batched get for the keys,
     * one for their prices) rather than the whole list, then filtered and paged the same way.
     */
    async listPrices(
      scope: Scope,
      page: PageRequest,
      where: Record<string, unknown>,
      lookupKeys?: readonly string[],
      created?: TimeRange,
    ): Promise<Page<Price>> {
      if (lookupKeys === undefined) return prices.list(scope, page, where, created);
      const keys = new Set(lookupKeys);
      const holders = await Promise.all([...keys].map((key) => catalogue.lookupKeyHolder(scope, key)));
      const held = await Promise.all([...new Set(holders.filter((id): id is string => id !== undefined))].map((id) => prices.get(scope, id)));
      const matching = held
        .filter((found): found is Price => found !== undefined && found.lookupKey !== null && keys.has(found.lookupKey))
        .filter((found) => Object.entries(where).every(([field, value]) => (found as unknown as Record<string, unknown>)[field] === value))
        .filter((found) => (created?.from ?? 0) <= found.created && found.created <= (created?.to ?? Number.POSITIVE_INFINITY))
        .sort((a, b) => (a.id < b.id ? 1 : -1));
      return pageOf(matching, page);
    },
  };
}
