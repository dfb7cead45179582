import * as z from 'zod';
import type { Price, PriceRepository, Product, ProductRepository } from '#shared/catalogue/catalogue.ts';
import type { Subscription, SubscriptionRepository } from '#shared/subscriptions/subscription.ts';
import { envelopeOf, metadataItem, orNull, ownedItem } from './item-schemas.ts';
import type { Table } from './table.ts';
import { price, product, subscription } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';

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
});

const priceItem = z.object({
  ...ownedItem,
  created: z.number(),
  product: z.string(),
  active: z.boolean(),
  currency: z.string(),
  unitAmount: orNull(z.number()),
  unitAmountDecimal: z.string(),
  recurring: orNull(z.object({ interval: z.enum(['day', 'week', 'month', 'year']), intervalCount: z.number() })),
  type: z.enum(['one_time', 'recurring']),
  nickname: orNull(z.string()),
  lookupKey: orNull(z.string()),
  taxBehavior: z.enum(['exclusive', 'inclusive', 'unspecified']),
  metadata: metadataItem,
});

/** Products, prices and subscriptions live in their owner's partition, uncapped. */
export const dynamoProductRepository = (table: Table): ProductRepository =>
  ownedResourceStore<Product>(table, { entity: 'product', keys: product, parse: (item) => productItem.parse(item) });
export const dynamoPriceRepository = (table: Table): PriceRepository =>
  ownedResourceStore<Price>(table, { entity: 'price', keys: price, parse: (item) => priceItem.parse(item) });
export const dynamoSubscriptionRepository = (table: Table): SubscriptionRepository =>
  ownedResourceStore<Subscription>(table, { entity: 'subscription', keys: subscription, parse: envelopeOf<Subscription>() });
