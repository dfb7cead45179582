import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ownerSearchQuery, ownerSearchStore, searchBudget } from '#shared/data/owner-search.ts';
import type { Table } from '#shared/data/table.ts';
import { idBoundAt, newId } from '#shared/core/ids.ts';

const scope = { accountId: 'acct_1', livemode: false };
const keys = { pk: 'OWNER#acct_1#test', skPrefix: 'CUSTOMER#', idPrefix: 'cus' };

describe('the search page query (offline)', () => {
  it('reads the kind’s range of the owner partition newest first, one item more than the page holds at first', () => {
    expect(ownerSearchQuery('t', keys, { created: {}, limit: 10 })).toEqual({
      TableName: 't',
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': 'OWNER#acct_1#test', ':lo': 'CUSTOMER#', ':hi': 'CUSTOMER#~' },
      ScanIndexForward: false,
      Limit: 11,
    });
    expect(ownerSearchQuery('t', keys, { created: {}, limit: 100 })!.Limit).toBe(101);
  });

  it('narrows the range to the creation window, since ids encode their creation time', () => {
    const input = ownerSearchQuery('t', keys, { created: { from: 1_000, to: 5_000 }, limit: 10 })!;
    expect(input.ExpressionAttributeValues).toMatchObject({ ':lo': `CUSTOMER#${idBoundAt('cus', 1_000)}`, ':hi': `CUSTOMER#${idBoundAt('cus', 5_000, true)}` });
    const inside = `CUSTOMER#${newId('cus', 3_000)}`;
    expect(inside > input.ExpressionAttributeValues![':lo'] && inside < input.ExpressionAttributeValues![':hi']).toBe(true);
    for (const outside of [newId('cus', 999), newId('cus', 5_001)]) {
      const sk = `CUSTOMER#${outside}`;
      expect(sk > input.ExpressionAttributeValues![':lo'] && sk < input.ExpressionAttributeValues![':hi']).toBe(false);
    }
  });

  it('resumes below the page token’s id, and reads nothing for an empty window or a token below it', () => {
    const after = newId('cus', 3_000);
    expect(ownerSearchQuery('t', keys, { after, created: {}, limit: 10 })!.ExclusiveStartKey).toEqual({ PK: keys.pk, SK: `CUSTOMER#${after}` });
    expect(ownerSearchQuery('t', keys, { after, created: { to: 2_000 }, limit: 10 })!.ExclusiveStartKey).toBeUndefined();
    expect(ownerSearchQuery('t', keys, { after, created: { from: 4_000 }, limit: 10 })).toBeUndefined();
    expect(ownerSearchQuery('t', keys, { created: { from: 5_000, to: 4_000 }, limit: 10 })).toBeUndefined();
    // Times beyond what an id encodes are clamped, so bounds still sort as ids do.
    expect(ownerSearchQuery('t', keys, { created: { from: 1e20 }, limit: 10 })!.ExpressionAttributeValues![':lo']).toBe(
      `CUSTOMER#${idBoundAt('cus', 62 ** 8 - 1)}`,
    );
  });
});

/** A fake table holding one owner's customers, answering Query as DynamoDB does (range, order, Limit, start key), counting calls. */
function fakeTable(items: Array<Record<string, unknown>>) {
  const sorted = [...items].sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1));
  const calls: QueryCommandInput[] = [];
  const table = {
    name: 't',
    async query(input: QueryCommandInput) {
      calls.push(input);
      const { ':lo': lo, ':hi': hi } = input.ExpressionAttributeValues as { ':lo': string; ':hi': string };
      const start = input.ExclusiveStartKey?.SK as string | undefined;
      const range = sorted
        .filter((item) => (item.SK as string) >= lo && (item.SK as string) <= hi && (start === undefined || (item.SK as string) < start))
        .reverse();
      const page = range.slice(0, input.Limit);
      const last = page.at(-1);
      return { items: page, ...(page.length === input.Limit && range.length > page.length ? { lastKey: { PK: last!.PK, SK: last!.SK } } : {}) };
    },
  } as unknown as Table;
  return { table, calls };
}

const customers = (count: number, at: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: count }, (_, i) => {
    const id = newId('cus', 1_000_000 + i * 1000);
    return { PK: keys.pk, SK: `CUSTOMER#${id}`, id, created: 1_000_000 + i * 1000, ...at(i) };
  });

const store = (table: Table) =>
  ownerSearchStore<{ id: string; created: number; tag?: string }>(table, {
    keys: { pk: () => keys.pk, skPrefix: () => keys.skPrefix },
    idPrefix: 'cus',
    parse: (item) => ({ id: item.id as string, created: item.created as number, tag: item.tag as string | undefined }),
  });

describe('a search page (offline, on a fake table)', () => {
  it('stops at one match more than the page holds, and resumes after the last one returned', async () => {
    const items = customers(30, (i) => ({ tag: i % 2 ? 'odd' : 'even' }));
    const { table, calls } = fakeTable(items);
    const page = await store(table).search(scope, { created: {}, limit: 5, matches: (object) => object.tag === 'odd' });
    expect(page.items.map((object) => object.id)).toEqual([29, 27, 25, 23, 21].map((i) => items[i]!.id));
    expect(page.resumeAfter).toBe(items[21]!.id);
    expect(calls.map((call) => call.Limit)).toEqual([6, 250]);
  });

  it('says nothing is left when the range ends, and leaves out deleted objects’ tombstones', async () => {
    const items = customers(6, (i) => (i === 5 ? { deleted: true } : {}));
    const { table } = fakeTable(items);
    const page = await store(table).search(scope, { created: {}, limit: 10, matches: () => true });
    expect(page).toEqual({
      items: items
        .slice(0, 5)
        .reverse()
        .map(({ id, created }) => ({ id, created })),
      resumeAfter: null,
    });
  });

  it('reads at most 1,000 items in 5 requests, then resumes after the last item read, however few matched', async () => {
    const items = customers(2_600, (i) => ({ tag: i === 5 ? 'rare' : 'common' }));
    const { table, calls } = fakeTable(items);
    const search = store(table);
    const first = await search.search(scope, { created: {}, limit: 10, matches: (object) => object.tag === 'rare' });
    expect(first).toEqual({ items: [], resumeAfter: items[2_600 - searchBudget.items]!.id });
    expect(calls.map((call) => call.Limit)).toEqual([11, 250, 250, 250, 239]);
    const second = await search.search(scope, { after: first.resumeAfter!, created: {}, limit: 10, matches: (object) => object.tag === 'rare' });
    expect(second.resumeAfter).toBe(items[600]!.id);
    const third = await search.search(scope, { after: second.resumeAfter!, created: {}, limit: 10, matches: (object) => object.tag === 'rare' });
    expect(third).toEqual({ items: [{ id: items[5]!.id, created: items[5]!.created, tag: 'rare' }], resumeAfter: null });
    expect(calls).toHaveLength(5 + 5 + 4);
  });
});
