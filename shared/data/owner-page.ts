import type { Page, PageRequest } from '#shared/paging.ts';
import type { Table } from './table.ts';

export interface OwnerPageQuery {
  pk: string;
  /** Every item of the listed kind has a sort key starting with this prefix followed by its id. */
  skPrefix: string;
  page: PageRequest;
  /** Only items whose attributes equal these values (a filter: pages may need several reads); dotted names are paths into maps. */
  where?: Record<string, unknown>;
  /** The sort key of the item with this id, when it is not `skPrefix` followed by the id. */
  skOf?: (id: string) => string;
}

/**
 * Queries until `limit + 1` items passed the filter (DynamoDB applies `Limit` before filtering) or the
 * range is exhausted; the extra item only tells whether there is more.
 */
export async function collect(table: Table, input: Parameters<Table['query']>[0], limit: number): Promise<Page<Record<string, unknown>>> {
  const filtered = input.FilterExpression !== undefined;
  const items: Record<string, unknown>[] = [];
  let start = input.ExclusiveStartKey;
  do {
    const page = await table.query({ ...input, ExclusiveStartKey: start, Limit: filtered ? Math.max(100, limit + 1) : limit + 1 - items.length });
    items.push(...page.items);
    start = page.lastKey;
  } while (items.length <= limit && start);
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}

/**
 * One v1 page of an owner's objects, newest first. Ids sort by creation time, so the sort key order is
 * the creation order: `starting_after` continues below that id, `ending_before` walks up from it.
 */
export async function queryOwnerPage(table: Table, query: OwnerPageQuery): Promise<Page<Record<string, unknown>>> {
  const { page, pk, skPrefix, where = {}, skOf = (id: string) => `${skPrefix}${id}` } = query;
  const forward = page.endingBefore !== undefined;
  const cursorId = page.endingBefore ?? page.startingAfter;
  const conditions = Object.keys(where).map((attribute, i) => {
    const segments = attribute.split('.');
    const path = segments.map((_, j) => `#w${i}_${j}`).join('.');
    return [`${path} = :w${i}`, segments, where[attribute]] as const;
  });
  const result = await collect(
    table,
    {
      TableName: table.name,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix, ...Object.fromEntries(conditions.map(([, , value], i) => [`:w${i}`, value])) },
      ...(conditions.length
        ? {
            FilterExpression: conditions.map(([expression]) => expression).join(' AND '),
            ExpressionAttributeNames: Object.fromEntries(conditions.flatMap(([, segments], i) => segments.map((segment, j) => [`#w${i}_${j}`, segment]))),
          }
        : {}),
      ScanIndexForward: forward,
      ExclusiveStartKey: cursorId === undefined ? undefined : { PK: pk, SK: skOf(cursorId) },
    },
    page.limit,
  );
  return { items: forward ? result.items.reverse() : result.items, hasMore: result.hasMore };
}
