import { eventRetentionMillis, type Delivery, type Outbox, type SnapshotEvent, type ThinEvent } from '#shared/events/event.ts';
import { epochSeconds } from './conditions.ts';
import type { TransactItem } from './table.ts';
import { delivery as deliveryKeys, snapshotEvent as snapshotKeys, thinEvent as thinKeys } from './keys.ts';

/**
 * The rate the due index is sized for: 10,000 due entries written and removed a second. At the targets it
 * takes far less since API meter events are counted on the request path (no entry): stream batches (2,500
 * a second at 10,000 events/s in the smallest batched requests, 4 events) and deliveries (1M an hour,
 * about 280 a second), ~5,600 writes/s. Kept at this size because a live table cannot lose shards: entries
 * in a dropped shard would no longer be swept.
 */
const targetDueWritesPerSecond = 2 * 10_000;
/** What one shard may take: well under the 1,000 WCU a partition takes, since time-ordered keys cannot split. */
const maxShardWritesPerSecond = 700;

/**
 * GSI2 shards of the due index, a power of two derived from the target rate (32): at 20,000 due writes a
 * second each shard takes about 625. Sweepers query every shard, so raising it is safe on a live table;
 * lowering it is not.
 */
export const dueShards = 2 ** Math.ceil(Math.log2(targetDueWritesPerSecond / maxShardWritesPerSecond));

/** Items one sweep reads from each shard: a sweep of `limit` items spread over the shards. */
export const perShardLimit = (limit: number): number => Math.max(10, Math.ceil(limit / dueShards));

/** Spreads pending deliveries over the GSI2 shards, so the sweeper's reads and the writes stay cool. */
export function dueShardOf(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  return hash % dueShards;
}

export const thinEventItem = (event: ThinEvent) => ({
  PK: thinKeys.pk(event.scope),
  SK: thinKeys.sk(event.id),
  ...(event.relatedObject ? { GSI1PK: thinKeys.gsi1pk(event.scope, event.relatedObject.id), GSI1SK: thinKeys.gsi1sk(event.id) } : {}),
  entity: 'thin_event',
  expiresAt: epochSeconds(event.created + eventRetentionMillis),
  ...event,
});

export const snapshotEventItem = (event: SnapshotEvent) => ({
  PK: snapshotKeys.pk(event.scope),
  SK: snapshotKeys.sk(event.id),
  entity: 'snapshot_event',
  expiresAt: epochSeconds(event.created + eventRetentionMillis),
  ...event,
});

/** Pending deliveries carry the GSI2 keys that make them visible to the sweeper; finished ones drop them. */
export const dueKeys = (id: string, dueAt: number) => ({ GSI2PK: deliveryKeys.gsi2pk(dueShardOf(id)), GSI2SK: deliveryKeys.gsi2sk(dueAt, id) });

export const deliveryItem = (delivery: Delivery) => ({
  PK: deliveryKeys.pk(delivery.id),
  SK: deliveryKeys.sk(),
  ...(delivery.status === 'pending' && delivery.nextAttemptAt !== null ? dueKeys(delivery.id, delivery.nextAttemptAt) : {}),
  entity: 'delivery',
  expiresAt: epochSeconds(delivery.created + eventRetentionMillis),
  ...delivery,
});

/** DynamoDB allows 100 actions per transaction; fan-out is bounded well below by the destination caps. */
const maxTransactionItems = 100;

/** The puts that write an outbox, to go into the same transaction as the change it belongs to. */
export function outboxItems(tableName: string, outbox: Outbox | undefined, alongside: TransactItem[] = []): TransactItem[] {
  if (!outbox) return alongside;
  const puts = [...outbox.thinEvents.map(thinEventItem), ...outbox.snapshotEvents.map(snapshotEventItem), ...outbox.deliveries.map(deliveryItem)].map(
    (Item): TransactItem => ({ Put: { TableName: tableName, Item } }),
  );
  const items = [...alongside, ...puts];
  if (items.length > maxTransactionItems) {
    throw new Error(`A change with its events needs ${items.length} writes, more than one transaction holds (${maxTransactionItems}).`);
  }
  return items;
}
