import { describe, expect, it } from 'vitest';
import { newId } from '#shared/core/ids.ts';
import { dynamoEventRepository, snapshotEventEntity, thinEventEntity } from '#shared/data/event-repository.ts';
import type { Table } from '#shared/data/table.ts';
import type { SnapshotEvent, ThinEvent } from '#shared/events/event.ts';

const scope = { accountId: 'acct_reads', livemode: false };
const day = 86_400_000;
const now = 100 * day;

const snapshot = (created: number): SnapshotEvent => ({
  id: newId('evt', created),
  scope,
  platformId: 'acct_reads',
  type: 'customer.created',
  created,
  apiVersion: '2025-01-01',
  object: { id: 'cus_1', object: 'customer' },
  previousAttributes: null,
  request: null,
  pendingWebhooks: 0,
  failedWebhooks: 0,
});
const thin = (created: number): ThinEvent => ({
  id: newId('evt', created),
  scope,
  platformId: 'acct_reads',
  type: 'v2.core.account.updated',
  created,
  relatedObject: null,
  changes: null,
  data: null,
  reason: null,
  snapshotEventId: null,
});

/**
 * A table holding one event partition that answers Query as DynamoDB does for these lists (newest first,
 * `Limit` applied before the expiry filter) and records the items each Query read: what it is billed for.
 */
function eventTable(items: Array<Record<string, unknown>>) {
  const newestFirst = [...items].sort((a, b) => (String(a.SK) < String(b.SK) ? 1 : -1));
  const reads: Array<{ limit: number | undefined; read: number }> = [];
  const table = {
    name: 't',
    async query(input: { Limit?: number; ExclusiveStartKey?: Record<string, unknown>; ExpressionAttributeValues?: Record<string, unknown> }) {
      const from = input.ExclusiveStartKey ? newestFirst.findIndex((item) => item.SK === input.ExclusiveStartKey!.SK) + 1 : 0;
      const read = newestFirst.slice(from, input.Limit === undefined ? undefined : from + input.Limit);
      reads.push({ limit: input.Limit, read: read.length });
      const nowSeconds = input.ExpressionAttributeValues?.[':now'] as number;
      const more = from + read.length < newestFirst.length;
      return {
        items: read.filter((item) => (item.expiresAt as number) > nowSeconds && (input.ExpressionAttributeValues?.[':type0'] ?? item.type) === item.type),
        lastKey: more ? { PK: read.at(-1)!.PK, SK: read.at(-1)!.SK } : undefined,
      };
    },
  } as unknown as Table;
  return { table, reads };
}

describe('event lists read what the page needs', () => {
  it('reads limit + 1 snapshot events for a page without filters, not 100', async () => {
    // Given 300 events of the last hour
    const { table, reads } = eventTable(Array.from({ length: 300 }, (_, i) => snapshotEventEntity.item(snapshot(now - i * 1_000))));

    // When a page of 5 is listed without types or delivery_success
    const page = await dynamoEventRepository(table).listSnapshot(scope, { page: { limit: 5 } }, now);

    // Then it is the 5 newest, read in one Query of 6 items
    expect(page.items.map((event) => event.created)).toEqual([0, 1, 2, 3, 4].map((i) => now - i * 1_000));
    expect(page.hasMore).toBe(true);
    expect(reads).toEqual([{ limit: 6, read: 6 }]);
  });

  it('reads limit + 1 thin events for a page without types', async () => {
    // Given 300 thin events
    const { table, reads } = eventTable(Array.from({ length: 300 }, (_, i) => thinEventEntity.item(thin(now - i * 1_000))));

    // When a page of 10 is listed
    const page = await dynamoEventRepository(table).listThin(scope, { limit: 10 }, now);

    // Then one Query read 11 items
    expect(page.items).toHaveLength(10);
    expect(reads).toEqual([{ limit: 11, read: 11 }]);
  });

  it('still skips the expired events TTL has not deleted yet, reading on past them', async () => {
    // Given 3 events of today and 20 older than the 30-day retention
    const fresh = [0, 1, 2].map((i) => snapshot(now - i * 1_000));
    const expired = Array.from({ length: 20 }, (_, i) => snapshot(now - 31 * day - i * 1_000));
    const { table, reads } = eventTable([...fresh, ...expired].map(snapshotEventEntity.item));

    // When a page of 5 is listed
    const page = await dynamoEventRepository(table).listSnapshot(scope, { page: { limit: 5 } }, now);

    // Then only the fresh ones are listed, and nothing more: the first Query read a page's worth, the next one the rest
    expect(page.items.map((event) => event.created)).toEqual(fresh.map((event) => event.created));
    expect(page.hasMore).toBe(false);
    expect(reads).toEqual([
      { limit: 6, read: 6 },
      { limit: 100, read: 17 },
    ]);
  });

  it('reads 100 at a time when a type filter may drop most events', async () => {
    // Given 300 events
    const { table, reads } = eventTable(Array.from({ length: 300 }, (_, i) => snapshotEventEntity.item(snapshot(now - i * 1_000))));

    // When a page of 5 of one type is listed
    await dynamoEventRepository(table).listSnapshot(scope, { page: { limit: 5 }, types: ['customer.created'] }, now);

    // Then the first Query asks for 100
    expect(reads[0]).toEqual({ limit: 100, read: 100 });
  });
});
