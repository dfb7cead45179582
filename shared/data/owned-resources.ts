import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { PageRequest, TimeRange } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Table, TransactItem } from './table.ts';
import { counter } from './keys.ts';
import { type OwnerPageQuery, queryOwnerPage } from './owner-page.ts';
import { transactGuarded } from './transactions.ts';

export interface OwnedResourceKeys {
  pk: (scope: Scope) => string;
  sk: (id: string) => string;
  skPrefix: () => string;
}

/** An owned kind: its entity name, keys, per-owner counter (capped kinds only) and item schema. */
export interface OwnedKind<T extends OwnedResource> {
  entity: string;
  keys: OwnedResourceKeys;
  counterName?: string;
  parse: (item: Record<string, unknown>) => T;
  /** What its ids begin with (`cus`, `prod`): lists then take a `created` window as a sort-key range. */
  idPrefix?: string;
  /** Index keys written with the object (every put recomputes them, so a changed value moves its entry). */
  indexKeys?: (resource: T) => Record<string, string>;
  /** An attribute that marks items lists skip (a deleted customer's tombstone carries `deleted`). */
  unlisted?: string;
}

/**
 * An owned kind's access patterns (TABLE_DESIGN.md 7–8, and each kind's rows) as pure builders of the
 * transaction actions its store sends: objects live in their owner's partition; for capped kinds a
 * counter item keeps the per-owner cap atomically, and goes first so that its failed condition is how a
 * full owner shows up; replace is conditional on the version before.
 */
export function ownedEntity<T extends OwnedResource>({ entity, keys, counterName, parse, indexKeys }: OwnedKind<T>) {
  const key = (scope: Scope, id: string) => ({ PK: keys.pk(scope), SK: keys.sk(id) });
  const item = (resource: T) => ({ ...key(resource.scope, resource.id), ...indexKeys?.(resource), entity, ...resource });
  /** The counter update of a capped kind (none for uncapped kinds), conditional on the cap when one is given. */
  const countBy = (tableName: string, scope: Scope, delta: number, limit?: number): TransactItem[] => {
    if (counterName === undefined) return [];
    const capped = limit !== undefined;
    return [
      {
        Update: {
          TableName: tableName,
          Key: { PK: counter.pk(scope), SK: counter.sk(counterName) },
          UpdateExpression: 'ADD #count :delta',
          ...(capped ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit' } : {}),
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':delta': delta, ...(capped ? { ':limit': limit } : {}) },
        },
      },
    ];
  };
  return {
    key,
    item,
    parse,
    create: (tableName: string, resource: T, limit?: number): TransactItem[] => [
      ...countBy(tableName, resource.scope, 1, limit),
      { Put: { TableName: tableName, Item: item(resource), ConditionExpression: 'attribute_not_exists(PK)' } },
    ],
    replace: (tableName: string, next: T): TransactItem[] => [
      {
        Put: {
          TableName: tableName,
          Item: item(next),
          ConditionExpression: 'attribute_exists(PK) AND version = :previous',
          ExpressionAttributeValues: { ':previous': next.version - 1 },
        },
      },
    ],
    delete: (tableName: string, scope: Scope, id: string): TransactItem[] => [
      { Delete: { TableName: tableName, Key: key(scope, id), ConditionExpression: 'attribute_exists(PK)' } },
      ...countBy(tableName, scope, -1),
    ],
  };
}

/** The query of one page of an owned kind's list (8), with its filters, creation window and unlisted items left out. */
export function ownedListQuery<T extends OwnedResource>(
  kind: OwnedKind<T>,
  scope: Scope,
  page: PageRequest,
  where?: Record<string, unknown>,
  created?: TimeRange,
): OwnerPageQuery {
  if (created && kind.idPrefix === undefined) throw new Error(`Listing ${kind.entity} objects by creation needs the kind's id prefix`);
  return {
    pk: kind.keys.pk(scope),
    skPrefix: kind.keys.skPrefix(),
    page,
    where,
    ...(kind.unlisted ? { absent: [kind.unlisted] } : {}),
    ...(created ? { created: { window: created, idPrefix: kind.idPrefix! } } : {}),
  };
}

/** DynamoDB store for an owned kind: sends its entity's actions, each write with the change's outbox in the same transaction. */
export function ownedResourceStore<T extends OwnedResource>(table: Table, kind: OwnedKind<T>): OwnedResourceStore<T> {
  const { name } = table;
  const commands = ownedEntity(kind);
  const { parse: fromItem } = commands;

  const store: OwnedResourceStore<T> = {
    create: (resource, { limit, outbox, using } = {}) => transactGuarded(table, commands.create(name, resource, limit), outbox, { using }),
    async get(scope, id) {
      const Item = await table.get(commands.key(scope, id));
      return Item ? fromItem(Item) : undefined;
    },
    replace: (next, outbox, using) => transactGuarded(table, commands.replace(name, next), outbox, { using }),
    delete: (scope, id, outbox) => transactGuarded(table, commands.delete(name, scope, id), outbox),
    async list(scope, page, where, created) {
      const result = await queryOwnerPage(table, ownedListQuery(kind, scope, page, where, created));
      return { items: result.items.map(fromItem), hasMore: result.hasMore };
    },
    async all(scope) {
      const items: T[] = [];
      let startingAfter: string | undefined;
      for (;;) {
        const page = await store.list(scope, { limit: 100, startingAfter });
        items.push(...page.items);
        if (!page.hasMore) return items;
        startingAfter = page.items.at(-1)!.id;
      }
    },
  };
  return store;
}
