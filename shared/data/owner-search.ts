import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Price, Product } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import { idBoundAt } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { SearchableStore, SearchRead } from '#shared/search/service.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';
import { catalogueEntity } from './billing-repositories.ts';
import { customerSourceEntity } from './customer-repository.ts';
import { envelopeOf } from './item-schemas.ts';
import { customer, price, product, subscription } from './keys.ts';
import type { OwnedResourceKeys } from './owned-resources.ts';
import type { Table } from './table.ts';

/**
 * What one search page may read (TABLE_DESIGN.md, access pattern "search an owner's kind"): at most 1,000
 * items. The first Query asks for one item more than the page holds (a query most objects match costs no
 * more than a list page), the next ones for 250 each: at most 5 Query requests. DynamoDB stops a Query at
 * 1 MB, so a page never reads more than 1,000 items whatever the query and however many objects the owner
 * has (about 55 read units for 1,000 customers, measured); one that runs out of budget before it is full
 * says where it stopped.
 */
export const searchBudget = { items: 1000, perQuery: 250 } as const;

/** The largest time `newId` encodes in its 8 base62 digits: bounds beyond it would not sort as ids do. */
const maxIdMillis = 62 ** 8 - 1;

export interface SearchKeys {
  pk: string;
  /** Every object of the kind has the sort key `skPrefix` + its id. */
  skPrefix: string;
  /** The id prefix (`cus`, `prod`, …): ids encode their creation time, so a creation window is a key range. */
  idPrefix: string;
}

/**
 * The first Query of a search page, newest first: the kind's sort-key range in the owner's partition,
 * narrowed to the creation window, starting below `after`, for one item more than the page holds;
 * undefined when that range is empty.
 */
export function ownerSearchQuery(
  tableName: string,
  keys: SearchKeys,
  read: Pick<SearchRead<unknown>, 'after' | 'created' | 'limit'>,
): QueryCommandInput | undefined {
  const { pk, skPrefix, idPrefix } = keys;
  const clamp = (millis: number) => Math.min(Math.max(millis, 0), maxIdMillis);
  const { from, to } = read.created;
  const lo = from === undefined ? skPrefix : `${skPrefix}${idBoundAt(idPrefix, clamp(from))}`;
  const hi = to === undefined ? `${skPrefix}~` : `${skPrefix}${idBoundAt(idPrefix, clamp(to), true)}`;
  if (lo > hi || (to !== undefined && to < 0)) return undefined;
  // DynamoDB refuses a start key outside the key condition: below the range there is nothing left, above it all of it.
  let start = read.after === undefined ? undefined : `${skPrefix}${read.after}`;
  if (start !== undefined && start <= lo) return undefined;
  if (start !== undefined && start > hi) start = undefined;
  return {
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': pk, ':lo': lo, ':hi': hi },
    ScanIndexForward: false,
    Limit: Math.min(read.limit + 1, searchBudget.perQuery),
    ...(start === undefined ? {} : { ExclusiveStartKey: { PK: pk, SK: start } }),
  };
}

export interface SearchableKind<T> {
  keys: Pick<OwnedResourceKeys, 'pk' | 'skPrefix'>;
  idPrefix: string;
  parse: (item: Record<string, unknown>) => T;
}

/**
 * Search of an owned kind in its owner's partition (never a Scan): Query pages of the kind's key range,
 * matched in memory, until one match more than the page holds is found (there is more), the range ends
 * (there is not), or the budget is spent (there may be: the page resumes after the last item read). An
 * item marked `deleted: true` (a deleted object's tombstone) is absent.
 */
export function ownerSearchStore<T extends { id: string }>(table: Table, kind: SearchableKind<T>): SearchableStore<T> {
  return {
    async search(scope: Scope, read) {
      const skPrefix = kind.keys.skPrefix();
      const input = ownerSearchQuery(table.name, { pk: kind.keys.pk(scope), skPrefix, idPrefix: kind.idPrefix }, read);
      if (!input) return { items: [], resumeAfter: null };
      const items: T[] = [];
      let examined = 0;
      let lastRead: string | undefined;
      let start = input.ExclusiveStartKey;
      for (;;) {
        const size = examined === 0 ? input.Limit! : searchBudget.perQuery;
        const page = await table.query({ ...input, ExclusiveStartKey: start, Limit: Math.min(size, searchBudget.items - examined) });
        for (const item of page.items) {
          examined += 1;
          lastRead = String(item.SK).slice(skPrefix.length);
          if (item.deleted === true) continue;
          const object = kind.parse(item);
          if (!read.matches(object)) continue;
          if (items.length === read.limit) return { items, resumeAfter: items.at(-1)!.id };
          items.push(object);
        }
        if (!page.lastKey) return { items, resumeAfter: null };
        if (examined >= searchBudget.items) return { items, resumeAfter: lastRead ?? null };
        start = page.lastKey;
      }
    },
  };
}

/** The searchable kinds, as their stores keep them (the same keys and item schemas). */
const searchableKinds = {
  customers: { keys: customer, idPrefix: 'cus', parse: customerSourceEntity.customers.parse } satisfies SearchableKind<Customer>,
  products: { keys: product, idPrefix: 'prod', parse: catalogueEntity.products.parse } satisfies SearchableKind<Product>,
  prices: { keys: price, idPrefix: 'price', parse: catalogueEntity.prices.parse } satisfies SearchableKind<Price>,
  subscriptions: { keys: subscription, idPrefix: 'sub', parse: envelopeOf<Subscription>() } satisfies SearchableKind<Subscription>,
};

export const dynamoCustomerSearchStore = (table: Table) => ownerSearchStore(table, searchableKinds.customers);
export const dynamoProductSearchStore = (table: Table) => ownerSearchStore(table, searchableKinds.products);
export const dynamoPriceSearchStore = (table: Table) => ownerSearchStore(table, searchableKinds.prices);
export const dynamoSubscriptionSearchStore = (table: Table) => ownerSearchStore(table, searchableKinds.subscriptions);
