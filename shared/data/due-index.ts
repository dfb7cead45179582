import type { Scope } from '#shared/platform/types.ts';
import { billingAlert, billingDue, billingThresholds, delivery, fanOut, meterRollDue, meterWorkDue } from './keys.ts';
import type { Item, Table } from './table.ts';

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
function dueShardOf(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  return hash % dueShards;
}

/**
 * The queues of the due index: pending deliveries and fan-outs, unfinished meter work, meter error windows
 * to report, usage partitions to roll, billing objects on the stack's clock that fall due, and billing alerts
 * waiting for their threshold.
 */
export type DueQueue = 'deliveries' | 'fan-outs' | 'meter-work' | 'meter-reports' | 'meter-rolls' | 'billing' | 'billing-alerts';

const partitionOf: Record<DueQueue, (shard: number) => string> = {
  deliveries: delivery.gsi2pk,
  'fan-outs': fanOut.gsi2pk,
  'meter-work': (shard) => meterWorkDue.gsi2pk('work', shard),
  'meter-reports': (shard) => meterWorkDue.gsi2pk('report', shard),
  'meter-rolls': meterRollDue.gsi2pk,
  billing: billingDue.gsi2pk,
  'billing-alerts': billingAlert.gsi2pk,
};
const sortKeyOf: Record<DueQueue, (dueAt: number, id: string) => string> = {
  deliveries: delivery.gsi2sk,
  'fan-outs': fanOut.gsi2sk,
  'meter-work': meterWorkDue.gsi2sk,
  'meter-reports': meterWorkDue.gsi2sk,
  // Its ids are usage partition keys.
  'meter-rolls': meterWorkDue.gsi2sk,
  // Its ids are `<kind>#<id>` (see billingDueEntry).
  billing: meterWorkDue.gsi2sk,
  'billing-alerts': billingAlert.gsi2sk,
};

/**
 * The GSI2 attributes that put an item in `queue`, due at `dueAt`: its shard is a hash of `shardBy` (its
 * id unless given), its sort key the due time then `id`. An item leaves the queue by removing them.
 */
export const dueEntry = (queue: DueQueue, id: string, dueAt: number, shardBy = id) => ({
  GSI2PK: partitionOf[queue](dueShardOf(shardBy)),
  GSI2SK: sortKeyOf[queue](dueAt, id),
});

/**
 * The items of `queue` due by `dueBy`: one Query per shard, all at once, each for about its share of
 * `limit` (at least 10), earliest first within a shard. Deliveries and meter work are swept through this.
 */
export async function dueItems(table: Table, queue: DueQueue, dueBy: number, limit: number): Promise<Item[]> {
  const share = perShardLimit(limit);
  const shards = await Promise.all(
    Array.from({ length: dueShards }, async (_, shard) => {
      // A share of large items (GSI2 projects them whole) may take more than one 1 MB page.
      const items: Item[] = [];
      let start: Item | undefined;
      do {
        const page = await table.query({
          TableName: table.name,
          IndexName: 'GSI2',
          KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :by',
          ExpressionAttributeValues: { ':pk': partitionOf[queue](shard), ':by': sortKeyOf[queue](dueBy, '~') },
          Limit: share - items.length,
          ExclusiveStartKey: start,
        });
        items.push(...page.items);
        start = page.lastKey;
      } while (start && items.length < share);
      return items;
    }),
  );
  return shards.flat();
}

/**
 * The earliest due time in `queue` after `after` (milliseconds), or undefined when nothing is due later: one
 * Query per shard, `Limit 1`, all at once, reading only the keys. The local stack's clock steps through these
 * (`local/clock.ts`, replayTo); `after` of -1 finds the earliest entry of all.
 */
export async function nextDueAt(table: Table, queue: DueQueue, after: number): Promise<number | undefined> {
  const firsts = await Promise.all(
    Array.from({ length: dueShards }, async (_, shard) => {
      const page = await table.query({
        TableName: table.name,
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK > :after',
        ExpressionAttributeValues: { ':pk': partitionOf[queue](shard), ':after': after < 0 ? ' ' : sortKeyOf[queue](after, '~') },
        ProjectionExpression: 'GSI2SK',
        Limit: 1,
      });
      const key = page.items[0]?.GSI2SK;
      // Every queue's sort key starts with its due time in 15 digits.
      return typeof key === 'string' ? Number(key.slice(0, 15)) : undefined;
    }),
  );
  const found = firsts.filter((due): due is number => due !== undefined && Number.isSafeInteger(due));
  return found.length > 0 ? Math.min(...found) : undefined;
}

/**
 * Every item of `queue` due by `dueBy`, a page at a time: each shard read to its end (the shards one after
 * another, so a run holds one page in memory). For queues whose items stay due until done, not claimed.
 */
export async function* allDueItems(table: Table, queue: DueQueue, dueBy: number): AsyncGenerator<Item[]> {
  for (let shard = 0; shard < dueShards; shard++) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await table.query({
        TableName: table.name,
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :by',
        ExpressionAttributeValues: { ':pk': partitionOf[queue](shard), ':by': sortKeyOf[queue](dueBy, '~') },
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      if (page.items.length > 0) yield page.items;
      start = page.lastKey;
    } while (start);
  }
}

/** The GSI1 attributes that put a subscription in the sparse index of those with billing thresholds (keys.ts). */
export const thresholdIndexEntry = (subscriptionId: string) => ({
  GSI1PK: billingThresholds.gsi1pk(dueShardOf(subscriptionId)),
  GSI1SK: billingThresholds.gsi1sk(subscriptionId),
});

/** 33d: one shard's Query of the subscriptions with billing thresholds, a 1 MB page at a time (built offline in the entity tests). */
export const thresholdIndexQuery = (tableName: string, shard: number, start?: Record<string, unknown>) => ({
  TableName: tableName,
  IndexName: 'GSI1',
  KeyConditionExpression: 'GSI1PK = :pk',
  ExpressionAttributeValues: { ':pk': billingThresholds.gsi1pk(shard) },
  ...(start ? { ExclusiveStartKey: start } : {}),
});

/** Every subscription in the threshold index, a page at a time, the shards one after another. */
export async function* allWithThresholds(table: Table): AsyncGenerator<Item[]> {
  for (let shard = 0; shard < dueShards; shard++) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await table.query(thresholdIndexQuery(table.name, shard, start));
      if (page.items.length > 0) yield page.items;
      start = page.lastKey;
    } while (start);
  }
}

/**
 * The GSI2 attributes that make a billing object (`kind` names its entity: `subscription`, `invoice`) due
 * at `due.at`: in the stack's sharded billing queue, or in its test clock's partition, which the clock's
 * advance reads in time order. None when nothing is due: an object's write leaves the index by omitting them.
 */
export function billingDueEntry(scope: Scope, kind: string, id: string, due: { at: number | null; testClock: string | null }) {
  if (due.at === null) return {};
  if (due.testClock === null) return dueEntry('billing', `${kind}#${id}`, due.at);
  return { GSI2PK: billingDue.clockGsi2pk(scope, due.testClock), GSI2SK: billingDue.gsi2sk(due.at, kind, id) };
}
