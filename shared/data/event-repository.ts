import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { EventRepository, SnapshotEventQuery, ThinEventQuery } from '#shared/events/event-repository.ts';
import type { TimeRange } from '#shared/wire/paging.ts';
import type { SnapshotEvent, ThinEvent } from '#shared/events/event.ts';
import { idBoundAt } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Table } from './table.ts';
import { epochSeconds } from './conditions.ts';
import { snapshotEvent as snapshotKeys, thinEvent as thinKeys } from './keys.ts';
import * as z from 'zod';
import { orNull, scopeItem, storedObject } from './item-schemas.ts';
import { snapshotEventItem, thinEventItem } from './outbox-items.ts';
import { collect } from './owner-page.ts';

const requestReason = z.object({ id: z.string(), idempotencyKey: orNull(z.string()) });
const objectRecord = z.record(z.string(), z.unknown());
/** The string set of an event's deliveries (absent until it has one). */
const deliveryIds = z
  .set(z.string())
  .optional()
  .transform((ids) => (ids ? [...ids] : undefined));

const thinEventSchema = z.object({
  id: z.string(),
  scope: scopeItem,
  platformId: z.string(),
  type: z.string(),
  created: z.number(),
  relatedObject: orNull(z.object({ id: z.string(), type: z.string(), url: z.string() })),
  changes: orNull(z.object({ before: z.unknown(), after: z.unknown() })),
  data: orNull(objectRecord),
  reason: orNull(requestReason),
  snapshotEventId: orNull(z.string()),
  deliveryIds,
});

const snapshotEventSchema = z.object({
  id: z.string(),
  scope: scopeItem,
  platformId: z.string(),
  type: z.string(),
  created: z.number(),
  apiVersion: z.string(),
  object: storedObject,
  previousAttributes: orNull(storedObject),
  request: orNull(requestReason),
  pendingWebhooks: z.number().default(0),
  failedWebhooks: z.number().default(0),
  deliveryIds,
});

/** Thin events (TABLE_DESIGN.md 36–38): keys, the item the outbox writes, and the schema every read parses. */
export const thinEventEntity = {
  key: (scope: Scope, id: string) => ({ PK: thinKeys.pk(scope), SK: thinKeys.sk(id) }),
  item: thinEventItem,
  parse: (item: Record<string, unknown>): ThinEvent => thinEventSchema.parse(item),
};

/** Snapshot events (TABLE_DESIGN.md 36, 39): keys, the item the outbox writes, and the schema every read parses. */
export const snapshotEventEntity = {
  key: (scope: Scope, id: string) => ({ PK: snapshotKeys.pk(scope), SK: snapshotKeys.sk(id) }),
  item: snapshotEventItem,
  parse: (item: Record<string, unknown>): SnapshotEvent => snapshotEventSchema.parse(item),
};

/** Sort-key bounds for a creation window, from the time encoded in event ids. */
function skRange(prefix: string, created: TimeRange | undefined): { lo: string; hi: string } {
  return {
    lo: created?.from === undefined ? prefix : `${prefix}${idBoundAt('evt', created.from)}`,
    hi: created?.to === undefined ? `${prefix}~` : `${prefix}${idBoundAt('evt', created.to, true)}`,
  };
}

interface Filter {
  expression: string[];
  values: Record<string, unknown>;
  names: Record<string, string>;
}

function filterOf(now: number, types: string[] | undefined): Filter {
  const filter: Filter = { expression: ['expiresAt > :now'], values: { ':now': epochSeconds(now) }, names: {} };
  if (types && types.length > 0) {
    filter.names['#type'] = 'type';
    const exact = types.filter((type) => !type.endsWith('*'));
    const prefixes = types.filter((type) => type.endsWith('*')).map((type) => type.slice(0, -1));
    const alternatives = [
      ...(exact.length ? [`#type IN (${exact.map((_, i) => `:type${i}`).join(', ')})`] : []),
      ...prefixes.map((_, i) => `begins_with(#type, :prefix${i})`),
    ];
    for (const [i, type] of exact.entries()) filter.values[`:type${i}`] = type;
    for (const [i, prefix] of prefixes.entries()) filter.values[`:prefix${i}`] = prefix;
    filter.expression.push(`(${alternatives.join(' OR ')})`);
  }
  return filter;
}

function withFilter(input: QueryCommandInput, filter: Filter): QueryCommandInput {
  return {
    ...input,
    FilterExpression: filter.expression.join(' AND '),
    ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ...filter.values },
    ExpressionAttributeNames: Object.keys(filter.names).length ? { ...input.ExpressionAttributeNames, ...filter.names } : input.ExpressionAttributeNames,
  };
}

/** The query of a thin-event list (37, 38): one page of the owner's events, or of one object's through GSI1, newest first. */
export function thinEventListQuery(tableName: string, scope: Scope, query: ThinEventQuery, now: number): QueryCommandInput {
  const { lo, hi } = skRange('EVENT#', query.created);
  const byObject = query.objectId !== undefined;
  const pk = byObject ? thinKeys.gsi1pk(scope, query.objectId!) : thinKeys.pk(scope);
  const input: QueryCommandInput = {
    TableName: tableName,
    ...(byObject ? { IndexName: 'GSI1' } : {}),
    KeyConditionExpression: `${byObject ? 'GSI1PK' : 'PK'} = :pk AND ${byObject ? 'GSI1SK' : 'SK'} BETWEEN :lo AND :hi`,
    ExpressionAttributeValues: { ':pk': pk, ':lo': lo, ':hi': hi },
    ScanIndexForward: false,
    ExclusiveStartKey:
      query.after === undefined
        ? undefined
        : { PK: thinKeys.pk(scope), SK: thinKeys.sk(query.after), ...(byObject ? { GSI1PK: pk, GSI1SK: thinKeys.gsi1sk(query.after) } : {}) },
  };
  return withFilter(input, filterOf(now, query.types));
}

/** The query of a snapshot-event list (39): a created window, types, delivery success; `ending_before` walks up. */
export function snapshotEventListQuery(tableName: string, scope: Scope, query: SnapshotEventQuery, now: number): QueryCommandInput {
  const { lo, hi } = skRange('EVENT#', query.created);
  const cursor = query.page.endingBefore ?? query.page.startingAfter;
  const filter = filterOf(now, query.types);
  if (query.deliverySuccess !== undefined) {
    filter.expression.push(
      query.deliverySuccess ? 'pendingWebhooks = :zero AND failedWebhooks = :zero' : '(pendingWebhooks > :zero OR failedWebhooks > :zero)',
    );
    filter.values[':zero'] = 0;
  }
  const input: QueryCommandInput = {
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': snapshotKeys.pk(scope), ':lo': lo, ':hi': hi },
    ScanIndexForward: query.page.endingBefore !== undefined,
    ExclusiveStartKey: cursor === undefined ? undefined : { PK: snapshotKeys.pk(scope), SK: snapshotKeys.sk(cursor) },
  };
  return withFilter(input, filter);
}

/**
 * Whether a list's filter is only the expiry: it drops only events past their 30 days that TTL has not deleted
 * yet, the oldest of the partition, so a newest-first page reads one page's worth (`limit + 1`) first instead of
 * 100 events (39, 37).
 */
const onlyExpiry = (types: string[] | undefined) => !types || types.length === 0;

/** DynamoDB adapter for reading thin and snapshot events, newest first, within their 30-day retention. */
export function dynamoEventRepository(table: Table): EventRepository {
  const { name } = table;
  /** The stored item if it exists and its retention has not passed (TTL deletion is lazy). */
  async function getFresh<T>(key: { PK: string; SK: string }, now: number, parse: (item: Record<string, unknown>) => T): Promise<T | undefined> {
    const item = await table.get(key);
    return item && typeof item.expiresAt === 'number' && item.expiresAt > epochSeconds(now) ? parse(item) : undefined;
  }

  return {
    getThin: (scope, id, now) => getFresh(thinEventEntity.key(scope, id), now, thinEventEntity.parse),

    async listThin(scope, query, now) {
      const page = await collect(table, thinEventListQuery(name, scope, query, now), query.limit, { rareFilter: onlyExpiry(query.types) });
      return { items: page.items.map(thinEventEntity.parse), hasMore: page.hasMore };
    },

    getSnapshot: (scope, id, now) => getFresh(snapshotEventEntity.key(scope, id), now, snapshotEventEntity.parse),

    async listSnapshot(scope, query, now) {
      const rareFilter = onlyExpiry(query.types) && query.deliverySuccess === undefined;
      const page = await collect(table, snapshotEventListQuery(name, scope, query, now), query.page.limit, { rareFilter });
      const items = page.items.map(snapshotEventEntity.parse);
      return { items: query.page.endingBefore !== undefined ? items.reverse() : items, hasMore: page.hasMore };
    },
  };
}
