import type { OwnedResource, OwnedResourceStore } from '#shared/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Table } from './table.ts';
import { counter } from './keys.ts';
import { queryOwnerPage } from './owner-page.ts';
import { transactGuarded } from './transactions.ts';

export interface OwnedResourceKeys {
  pk: (scope: Scope) => string;
  sk: (id: string) => string;
  skPrefix: () => string;
}

/**
 * DynamoDB store for owned resources; `parse` is the kind's item schema, which every read goes through. Objects live in their owner's partition; for capped kinds a counter
 * item (`counterName`) enforces the per-owner cap atomically; every write carries the change's outbox in
 * the same transaction.
 */
export function ownedResourceStore<T extends OwnedResource>(
  table: Table,
  options: { entity: string; keys: OwnedResourceKeys; counterName?: string; parse: (item: Record<string, unknown>) => T },
): OwnedResourceStore<T> {
  const { name } = table;
  const { keys, entity, counterName, parse: fromItem } = options;
  const toItem = (resource: T) => ({ PK: keys.pk(resource.scope), SK: keys.sk(resource.id), entity, ...resource });
  /** The counter update of a capped kind (none for uncapped kinds), conditional on the cap when one is given. */
  function countBy(scope: Scope, delta: number, limit?: number) {
    if (counterName === undefined) return [];
    const capped = limit !== undefined;
    return [
      {
        Update: {
          TableName: name,
          Key: { PK: counter.pk(scope), SK: counter.sk(counterName) },
          UpdateExpression: 'ADD #count :delta',
          ...(capped ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit' } : {}),
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':delta': delta, ...(capped ? { ':limit': limit } : {}) },
        },
      },
    ];
  }

  const store: OwnedResourceStore<T> = {
    create(resource, { limit, outbox } = {}) {
      const put = { TableName: name, Item: toItem(resource), ConditionExpression: 'attribute_not_exists(PK)' };
      // The counter goes first: its failed condition is how a full owner shows up.
      return transactGuarded(table, [...countBy(resource.scope, 1, limit), { Put: put }], outbox);
    },
    async get(scope, id) {
      const Item = await table.get({ PK: keys.pk(scope), SK: keys.sk(id) });
      return Item ? fromItem(Item) : undefined;
    },
    replace(next, outbox) {
      const put = {
        TableName: name,
        Item: toItem(next),
        ConditionExpression: 'attribute_exists(PK) AND version = :previous',
        ExpressionAttributeValues: { ':previous': next.version - 1 },
      };
      return transactGuarded(table, [{ Put: put }], outbox);
    },
    delete(scope, id, outbox) {
      const remove = { TableName: name, Key: { PK: keys.pk(scope), SK: keys.sk(id) }, ConditionExpression: 'attribute_exists(PK)' };
      return transactGuarded(table, [{ Delete: remove }, ...countBy(scope, -1)], outbox);
    },
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
