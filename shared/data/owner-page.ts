import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Page, PageRequest } from '#shared/http/pagination.ts';
import type { Table } from './client.ts';

export interface OwnerPageQuery {
  pk: string;
  /** Every item of the listed kind has a sort key starting with this prefix followed by its id. */
  skPrefix: string;
  page: PageRequest;
}

/**
 * One v1 page of an owner's objects, newest first. Ids sort by creation time, so the sort key order is
 * the creation order: `starting_after` continues below that id, `ending_before` walks up from it.
 */
export async function queryOwnerPage({ client, name }: Table, query: OwnerPageQuery): Promise<Page<Record<string, unknown>>> {
  const { page, pk, skPrefix } = query;
  const forward = page.endingBefore !== undefined;
  const cursorId = page.endingBefore ?? page.startingAfter;
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: name,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ScanIndexForward: forward,
      Limit: page.limit + 1,
      ExclusiveStartKey: cursorId === undefined ? undefined : { PK: pk, SK: `${skPrefix}${cursorId}` },
    }),
  );
  const items = Items.slice(0, page.limit);
  return { items: forward ? items.reverse() : items, hasMore: Items.length > page.limit };
}
