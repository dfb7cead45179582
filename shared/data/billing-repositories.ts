import * as z from 'zod';
import type { CatalogueChange, CatalogueRepository, Price, PriceRepository, Product } from '#shared/catalogue/catalogue.ts';
import type { Scope } from '#shared/platform/types.ts';
import { completeStored, type Subscription, type SubscriptionItemsChange, type SubscriptionRepository } from '#shared/subscriptions/subscription.ts';
import { systemClock } from '#shared/core/clock.ts';
import { allWithThresholds, billingDueEntry, thresholdIndexEntry } from './due-index.ts';
import { dueOnClock } from './billing-due-index.ts';
import type { ThresholdIndex } from '#shared/subscriptions/threshold-evaluator.ts';
import { hasThresholds } from '#shared/subscriptions/thresholds.ts';
import { envelopeOf, metadataItem, orNull, ownedItem } from './item-schemas.ts';
import type { Table, TransactItem } from './table.ts';
import { price, priceLookupKey, product, subscription, subscriptionItem } from './keys.ts';
import { ownedEntity, ownedResourceStore } from './owned-resources.ts';
import { transactChecked, transactGuarded } from './transactions.ts';
import { customerSourceEntity } from './customer-repository.ts';
import { invoiceEntity } from './invoice-repository.ts';

const taxBehaviorItem = z.enum(['exclusive', 'inclusive', 'unspecified']);

const productItem = z.object({
  ...ownedItem,
  created: z.number(),
  updated: z.number(),
  name: z.string(),
  active: z.boolean(),
  description: orNull(z.string()),
  metadata: metadataItem,
  unitLabel: orNull(z.string()),
  url: orNull(z.string()),
  statementDescriptor: orNull(z.string()),
  taxCode: orNull(z.string()),
  images: z.array(z.string()),
  defaultPrice: orNull(z.string()),
  marketingFeatures: z
    .array(z.object({ name: z.string() }))
    .optional()
    .transform((features) => features ?? []),
  packageDimensions: orNull(z.object({ height: z.number(), length: z.number(), weight: z.number(), width: z.number() })),
  shippable: orNull(z.boolean()),
  priceCount: orNull(z.number()),
});

const tierItem = z.object({
  upTo: orNull(z.number()),
  unitAmount: orNull(z.number()),
  unitAmountDecimal: orNull(z.string()),
  flatAmount: orNull(z.number()),
  flatAmountDecimal: orNull(z.string()),
});

const priceItem = z.object({
  ...ownedItem,
  created: z.number(),
  product: z.string(),
  active: z.boolean(),
  currency: z.string(),
  unitAmount: orNull(z.number()),
  unitAmountDecimal: orNull(z.string()),
  // Prices stored before tiers existed are per_unit, untransformed.
  billingScheme: z.enum(['per_unit', 'tiered']).default('per_unit'),
  tiersMode: orNull(z.enum(['graduated', 'volume'])),
  tiers: orNull(z.array(tierItem)),
  transformQuantity: orNull(z.object({ divideBy: z.number(), round: z.enum(['up', 'down']) })),
  // Prices stored before metered prices existed are licensed.
  recurring: orNull(
    z.object({
      interval: z.enum(['day', 'week', 'month', 'year']),
      intervalCount: z.number(),
      usageType: z.enum(['licensed', 'metered']).default('licensed'),
      meter: orNull(z.string()).default(null),
    }),
  ),
  type: z.enum(['one_time', 'recurring']),
  nickname: orNull(z.string()),
  lookupKey: orNull(z.string()),
  taxBehavior: taxBehaviorItem,
  metadata: metadataItem,
  currencyOptions: z
    .record(
      z.string(),
      z.object({ unitAmount: orNull(z.number()), unitAmountDecimal: orNull(z.string()), tiers: orNull(z.array(tierItem)), taxBehavior: taxBehaviorItem }),
    )
    .optional()
    .transform((options) => options ?? {}),
});

const productKind = { entity: 'product', keys: product, idPrefix: 'prod', parse: (item: Record<string, unknown>): Product => productItem.parse(item) };
const priceKind = { entity: 'price', keys: price, idPrefix: 'price', parse: (item: Record<string, unknown>): Price => priceItem.parse(item) };
const products = ownedEntity<Product>(productKind);
const prices = ownedEntity<Price>(priceKind);

/** A condition that an object the change read, and does not write, is still at the version read. */
const versionCheck = (tableName: string, key: Record<string, string>, version: number): TransactItem => ({
  ConditionCheck: { TableName: tableName, Key: key, ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': version } },
});

/**
 * The catalogue's writes (TABLE_DESIGN.md 32, 32a–32c) as one transaction's actions, each conditional on
 * what the service read: products and prices are owned kinds in their owner's partition; a new price of an
 * existing product adds to the product's `priceCount` and `version` (so a delete conditional on the version
 * read refuses once a price exists); a lookup key is an item of its own naming its holder; an object the
 * change relies on without writing it (a product's default price, a price's product) is a version check.
 */
export const catalogueEntity = {
  products,
  prices,
  lookupKey: (scope: Scope, key: string) => ({ PK: priceLookupKey.pk(scope), SK: priceLookupKey.sk(key) }),
  commit(tableName: string, change: CatalogueChange): TransactItem[] {
    const { scope } = change;
    const created = new Set((change.newProducts ?? []).map((made) => made.id));
    const counted = new Map<string, number>();
    for (const { product: owner } of change.newPrices ?? []) if (!created.has(owner)) counted.set(owner, (counted.get(owner) ?? 0) + 1);
    return [
      ...(change.newProducts ?? []).flatMap((made) => products.create(tableName, made)),
      ...(change.changedProducts ?? []).flatMap((next) => products.replace(tableName, next)),
      ...(change.deletedProduct
        ? [
            {
              Delete: {
                TableName: tableName,
                Key: products.key(scope, change.deletedProduct.id),
                ConditionExpression: 'version = :version',
                ExpressionAttributeValues: { ':version': change.deletedProduct.version },
              },
            },
          ]
        : []),
      ...[...counted].map(([owner, count]) => ({
        Update: {
          TableName: tableName,
          Key: products.key(scope, owner),
          UpdateExpression: 'ADD priceCount :count, version :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':count': count, ':one': 1 },
        },
      })),
      ...(change.newPrices ?? []).flatMap((made) => prices.create(tableName, made)),
      ...(change.changedPrices ?? []).flatMap((next) => prices.replace(tableName, next)),
      ...(change.unchangedProducts ?? []).map((read) => versionCheck(tableName, products.key(scope, read.id), read.version)),
      ...(change.unchangedPrices ?? []).map((read) => versionCheck(tableName, prices.key(scope, read.id), read.version)),
      ...(change.lookupKeys ?? []).map(({ key, from, to }): TransactItem => {
        const holder =
          from === null
            ? { ConditionExpression: 'attribute_not_exists(PK)' }
            : { ConditionExpression: 'priceId = :from', ExpressionAttributeValues: { ':from': from } };
        if (to === null) return { Delete: { TableName: tableName, Key: catalogueEntity.lookupKey(scope, key), ...holder } };
        return { Put: { TableName: tableName, Item: { ...catalogueEntity.lookupKey(scope, key), entity: 'price_lookup_key', priceId: to }, ...holder } };
      }),
    ];
  },
};

/** Products, prices and lookup keys in their owner's partition. */
export function dynamoCatalogueRepository(table: Table): CatalogueRepository {
  return {
    products: ownedResourceStore<Product>(table, productKind),
    prices: ownedResourceStore<Price>(table, priceKind),
    async lookupKeyHolder(scope, key) {
      const item = await table.get(catalogueEntity.lookupKey(scope, key));
      return item ? z.object({ priceId: z.string() }).parse(item).priceId : undefined;
    },
    commit: (change, outbox) => transactChecked(table, catalogueEntity.commit(table.name, change), outbox),
  };
}

/** Prices as subscriptions make them (`price_data`): counted on their product, which must exist. */
export function dynamoPriceRepository(table: Table): PriceRepository {
  const store = ownedResourceStore<Price>(table, priceKind);
  return {
    get: store.get,
    create: (made, { outbox } = {}) => transactChecked(table, catalogueEntity.commit(table.name, { scope: made.scope, newPrices: [made] }), outbox),
  };
}

const storedSubscription = envelopeOf<Subscription>();
const subscriptionKind = {
  entity: 'subscription',
  keys: subscription,
  idPrefix: 'sub',
  parse: (item: Record<string, unknown>) => completeStored(storedSubscription(item), systemClock()),
  /** In the due index while a step of its life is due (33b); in the threshold index while it has thresholds, on the stack's clock, not ended (33d). */
  indexKeys: (made: Subscription) => ({
    ...billingDueEntry(made.scope, 'subscription', made.id, made.due),
    ...(hasThresholds(made) && made.testClock === null && made.endedAt === null ? thresholdIndexEntry(made.id) : {}),
  }),
};

const itemPointerKey = (scope: Scope, itemId: string) => ({ PK: subscriptionItem.pk(scope), SK: subscriptionItem.sk(itemId) });
const itemPointerItem = z.object({ subscription: z.string() });

/**
 * Subscriptions (33): a new one claims its customer in its transaction (33a), so none is made for a customer
 * being deleted. Each of its items has a pointer `SUBSCRIPTION_ITEM#<si>` naming the subscription (33c),
 * put and deleted in the transaction that adds or removes the item.
 */
export const subscriptionEntity = {
  subscriptions: ownedEntity<Subscription>(subscriptionKind),
  itemPointerKey,
  itemPointer: (tableName: string, scope: Scope, itemId: string, subscriptionId: string): TransactItem => ({
    Put: { TableName: tableName, Item: { ...itemPointerKey(scope, itemId), entity: 'subscription_item', subscription: subscriptionId } },
  }),
  create: (tableName: string, made: Subscription): TransactItem[] => [
    customerSourceEntity.claimForSubscription(tableName, made.scope, made.customer),
    ...subscriptionEntity.subscriptions.create(tableName, made),
    ...made.items.map((item) => subscriptionEntity.itemPointer(tableName, made.scope, item.id, made.id)),
  ],
  /** A replace that adds and removes items (33c): the versioned put, then the pointers put and deleted. */
  replaceItems: (tableName: string, next: Subscription, change: SubscriptionItemsChange): TransactItem[] => [
    ...subscriptionEntity.subscriptions.replace(tableName, next),
    ...change.added.map((itemId) => subscriptionEntity.itemPointer(tableName, next.scope, itemId, next.id)),
    ...change.removed.map((itemId) => ({ Delete: { TableName: tableName, Key: itemPointerKey(next.scope, itemId) } })),
    ...invoiceEntity.commit(tableName, { newItems: change.invoiceItems, deletedItems: change.deletedInvoiceItems }),
  ],
};

/** The threshold evaluator's reads: the sparse GSI1 index (33d), and a test clock's subscriptions from its due partition (53c). */
export function dynamoThresholdIndex(table: Table): ThresholdIndex {
  const parse = subscriptionEntity.subscriptions.parse;
  return {
    async *withThresholds() {
      for await (const items of allWithThresholds(table)) yield items.map(parse);
    },
    onClock: async (scope, clockId) => (await dueOnClock(table, scope, clockId, 'subscription')).map(parse),
  };
}

export function dynamoSubscriptionRepository(table: Table): SubscriptionRepository {
  const store = ownedResourceStore<Subscription>(table, subscriptionKind);
  return {
    ...store,
    /** False when the customer is missing or deleted (or, never in practice, the id is taken). */
    create: (made, { outbox } = {}) => transactGuarded(table, subscriptionEntity.create(table.name, made), outbox, { guarded: 2 }),
    // Every condition (the subscription's version, a deleted invoice item's) is a lost race: false, and the caller reads again.
    replaceItems: (next, change, outbox) => {
      const actions = subscriptionEntity.replaceItems(table.name, next, change);
      return transactGuarded(table, actions, outbox, { guarded: actions.length });
    },
    /** Two strongly consistent reads: the item's pointer, then its subscription (which must still hold the item). */
    async findByItem(scope, itemId) {
      const pointer = await table.get(itemPointerKey(scope, itemId));
      if (!pointer) return undefined;
      const found = await store.get(scope, itemPointerItem.parse(pointer).subscription);
      return found?.items.some((item) => item.id === itemId) ? found : undefined;
    },
  };
}
