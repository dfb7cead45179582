import type { Price, PriceRepository, Product, ProductRepository } from '#shared/catalogue/catalogue.ts';
import type { Subscription, SubscriptionRepository } from '#shared/subscriptions/subscription.ts';
import type { Table } from './table.ts';
import { price, product, subscription } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';

/** Products, prices and subscriptions live in their owner's partition, uncapped. */
export const dynamoProductRepository = (table: Table): ProductRepository => ownedResourceStore<Product>(table, { entity: 'product', keys: product });
export const dynamoPriceRepository = (table: Table): PriceRepository => ownedResourceStore<Price>(table, { entity: 'price', keys: price });
export const dynamoSubscriptionRepository = (table: Table): SubscriptionRepository =>
  ownedResourceStore<Subscription>(table, { entity: 'subscription', keys: subscription });
