import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { idBoundAt } from '#shared/core/ids.ts';
import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import type { Table } from './table.ts';

export interface OwnerPageQuery {
  pk: string;
  /** Every item of the listed kind has a sort key starting with this prefix followed by its id. */
  skPrefix: string;
  page: PageRequest;
  /** Only items whose attributes equal these values (a filter: pages may need several reads); dotted names are paths into maps. */
  where?: Record<string, unknown>;
  /**
   * Only items that have none of these attributes: a filter that drops few items (a deleted customer's
   * tombstone carries `deleted`), so the first read asks for just one page, as an unfiltered list does.
   */
  absent?: string[];
  /** The sort key of the item with this id, when it is not `skPrefix` followed by the id. */
  skOf?: (id: string) => string;
  /**
   * Only items created in this window. Ids begin with `idPrefix` and encode their creation time, so the
   * window is a sort-key range (`SK BETWEEN`), not a filter: it costs only what it returns.
   */
  created?: { window: TimeRange; idPrefix: string };
  /** Read GSI1 instead of the table: `GSI1PK = gsi1pk`, and `GSI1SK` holds the same string as `SK`. */
  index?: { gsi1pk: string };
}

/**
 * Queries until `limit + 1` items passed the filter (DynamoDB applies `Limit` before filtering) or the
 * range is exhausted; the extra item only tells whether there is more. A filter that drops many items
 * reads at least 100 at a time; one that drops few (`rareFilter`) starts with one page's worth.
 */
export async function collect(
  table: Table,
  input: Parameters<Table['query']>[0],
  limit: number,
  { rareFilter = false }: { rareFilter?: boolean } = {},
): Promise<Page<Record<string, unknown>>> {
  const filtered = input.FilterExpression !== undefined;
  const items: Record<string, unknown>[] = [];
  let start = input.ExclusiveStartKey;
  let reads = 0;
  do {
    const wanted = limit + 1 - items.length;
    const page = await table.query({ ...input, ExclusiveStartKey: start, Limit: filtered && (!rareFilter || reads > 0) ? Math.max(100, wanted) : wanted });
    reads += 1;
    items.push(...page.items);
    start = page.lastKey;
  } while (items.length <= limit && start);
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}

/** Sort-key bounds of a creation window over `<skPrefix><id>` keys whose ids begin with `idPrefix` (no window on a side: the whole prefix). */
export function createdSkRange(skPrefix: string, idPrefix: string, window: TimeRange): { lo: string; hi: string } {
  return {
    lo: window.from === undefined ? skPrefix : `${skPrefix}${idBoundAt(idPrefix, window.from)}`,
    hi: window.to === undefined ? `${skPrefix}~` : `${skPrefix}${idBoundAt(idPrefix, window.to, true)}`,
  };
}

/**
 * The Query of one v1 page of an owner's objects, newest first (undefined when the page is empty whatever
 * the table holds: an empty creation window, or a cursor beyond it). Ids sort by creation time, so the sort
 * key order is the creation order: `starting_after` continues below that id, `ending_before` walks up from it.
 */
export function ownerPageQuery(tableName: string, query: OwnerPageQuery): QueryCommandInput | undefined {
  const { page, pk, skPrefix, where = {}, absent = [], created, index, skOf = (id: string) => `${skPrefix}${id}` } = query;
  const forward = page.endingBefore !== undefined;
  const cursorId = page.endingBefore ?? page.startingAfter;
  const range = created ? createdSkRange(skPrefix, created.idPrefix, created.window) : undefined;
  let startSk = cursorId === undefined ? undefined : skOf(cursorId);
  if (range) {
    // DynamoDB refuses BETWEEN with its bounds reversed (gt after lt), and a start key outside the key
    // condition: a cursor beyond the range means "all of it" on one side and "nothing" on the other.
    if (range.lo > range.hi) return undefined;
    if (startSk !== undefined && (forward ? startSk >= range.hi : startSk <= range.lo)) return undefined;
    if (startSk !== undefined && (forward ? startSk < range.lo : startSk > range.hi)) startSk = undefined;
  }
  const conditions = Object.entries(where)
    .filter(([, value]) => value !== undefined)
    .map(([attribute, value], i) => {
      const segments = attribute.split('.');
      const path = segments.map((_, j) => `#w${i}_${j}`).join('.');
      const names: Array<[string, string]> = segments.map((segment, j) => [`#w${i}_${j}`, segment]);
      return { expression: `${path} = :w${i}`, names, value: [`:w${i}`, value] as const };
    });
  const missing = absent.map((attribute, i) => ({ expression: `attribute_not_exists(#a${i})`, names: [[`#a${i}`, attribute]] as Array<[string, string]> }));
  const filters = [...conditions, ...missing];
  const [pkName, skName] = index ? ['GSI1PK', 'GSI1SK'] : ['PK', 'SK'];
  return {
    TableName: tableName,
    ...(index ? { IndexName: 'GSI1' } : {}),
    KeyConditionExpression: range ? `${pkName} = :pk AND ${skName} BETWEEN :lo AND :hi` : `${pkName} = :pk AND begins_with(${skName}, :prefix)`,
    ExpressionAttributeValues: {
      ':pk': index ? index.gsi1pk : pk,
      ...(range ? { ':lo': range.lo, ':hi': range.hi } : { ':prefix': skPrefix }),
      ...Object.fromEntries(conditions.map(({ value }) => value)),
    },
    ...(filters.length
      ? {
          FilterExpression: filters.map(({ expression }) => expression).join(' AND '),
          ExpressionAttributeNames: Object.fromEntries(filters.flatMap(({ names }) => names)),
        }
      : {}),
    ScanIndexForward: forward,
    ExclusiveStartKey: startSk === undefined ? undefined : { PK: pk, SK: startSk, ...(index ? { GSI1PK: index.gsi1pk, GSI1SK: startSk } : {}) },
  };
}

/** One v1 page of an owner's objects, newest first (`ownerPageQuery`, read until the page is full). */
export async function queryOwnerPage(table: Table, query: OwnerPageQuery): Promise<Page<Record<string, unknown>>> {
  const input = ownerPageQuery(table.name, query);
  if (!input) return { items: [], hasMore: false };
  const onlyRare = Object.values(query.where ?? {}).every((value) => value === undefined);
  const result = await collect(table, input, query.page.limit, { rareFilter: onlyRare });
  return { items: query.page.endingBefore !== undefined ? result.items.reverse() : result.items, hasMore: result.hasMore };
}
