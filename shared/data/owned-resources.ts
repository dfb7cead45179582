import type { OwnedResource, OwnedResourceStore } from '#shared/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Table, TransactItem } from './table.ts';
import { counter } from './keys.ts';
import { queryOwnerPage } from './owner-page.ts';
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
}

/**
 * An owned kind's access patterns (TABLE_DESIGN.md 7–8, and each kind's rows) as pure builders of the
 * transaction actions its store sends: objects live in their owner's partition; for capped kinds a
 * counter item keeps the per-owner cap atomically, and goes first so that its failed condition is how a
 * full owner shows up; replace is conditional on the version before.
 */
export function ownedEntity<T extends OwnedResource>({ entity, keys, counterName, parse }: OwnedKind<T>) {
  const key = (scope: Scope, id: string) => ({ PK: keys.pk(scope), SK: keys.sk(id) });
  const item = (resource: T) => ({ ...key(resource.scope, resource.id), entity, ...resource });
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

/** DynamoDB store for an owned kind: sends its entity's actions, each write with the change's outbox in the same transaction. */
export function ownedResourceStore<T extends OwnedResource>(table: Table, kind: OwnedKind<T>): OwnedResourceStore<T> {
  const { name } = table;
  const { keys } = kind;
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
    async list(scope, page, where) {
      const result = await queryOwnerPage(table, { pk: keys.pk(scope), skPrefix: keys.skPrefix(), page, where });
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
