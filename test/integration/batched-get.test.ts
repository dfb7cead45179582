import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { callScope, withCallScope } from '#shared/aws/aws-calls.ts';
import { makeTable } from '#shared/data/table.ts';
import { api, newPlatform, stackClient, stackTable } from '../support/stack.ts';

describe('the batched getter', () => {
  it('sends the gets of one tick as one BatchGetItem and answers each with its own item', async () => {
    // Given 30 stored items and a table handle that counts calls
    const real = stackTable();
    const prefix = `BATCH#${Date.now()}`;
    for (let i = 0; i < 30; i++) await real.put({ TableName: real.name, Item: { PK: `${prefix}#${i}`, SK: 'ITEM', n: i } });
    let calls = 0;
    const sent: string[] = [];
    const client = stackClient();
    const counting = {
      send: (command: { constructor: { name: string } }) => {
        calls++;
        sent.push(command.constructor.name);
        return client.send(command as never);
      },
    } as unknown as DynamoDBClient;
    const table = makeTable(counting, real.name);

    // When 30 gets (and one for a missing item, and a duplicate) are issued together
    const keys = [
      ...Array.from({ length: 30 }, (_, i) => ({ PK: `${prefix}#${i}`, SK: 'ITEM' })),
      { PK: `${prefix}#missing`, SK: 'ITEM' },
      { PK: `${prefix}#3`, SK: 'ITEM' },
    ];
    const items = await Promise.all(keys.map((key) => table.get(key)));

    // Then one call served them all, in order, with undefined for the missing one
    expect(calls).toBe(1);
    expect(items.slice(0, 30).map((item) => item?.n)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(items[30]).toBeUndefined();
    expect(items[31]?.n).toBe(3);

    // And a later get alone is a new call, a plain GetItem
    expect(await table.get({ PK: `${prefix}#0`, SK: 'ITEM' })).toMatchObject({ n: 0 });
    expect(await table.get({ PK: `${prefix}#missing`, SK: 'ITEM' })).toBeUndefined();
    expect(calls).toBe(3);
    expect(sent.slice(-2)).toEqual(['GetItemCommand', 'GetItemCommand']);
  });

  it('never puts the gets of two invocations in one batch: each is authorized and counted as its own function', async () => {
    // Given a table handle that records each call's keys, and two invocations' call scopes (the local stack
    // serves every function in one process)
    const real = stackTable();
    const prefix = `SCOPES#${Date.now()}`;
    for (let i = 0; i < 4; i++) await real.put({ TableName: real.name, Item: { PK: `${prefix}#${i}`, SK: 'ITEM', n: i } });
    const batches: number[] = [];
    const client = stackClient();
    const table = makeTable(
      {
        send: (command: { input: { Key?: unknown; RequestItems?: Record<string, { Keys: unknown[] }> } }) => {
          batches.push(command.input.Key ? 1 : Object.values(command.input.RequestItems ?? {})[0]!.Keys.length);
          return client.send(command as never);
        },
      } as unknown as DynamoDBClient,
      real.name,
    );
    const [first, second] = [callScope(), callScope()];

    // When each invocation issues two gets in the same turn
    const reads = [0, 1, 2, 3].map((i) => withCallScope(i < 2 ? first : second, () => table.get({ PK: `${prefix}#${i}`, SK: 'ITEM' })));
    const items = await Promise.all(reads);

    // Then each invocation's gets were one batch of two, and each got its own item
    expect(batches).toEqual([2, 2]);
    expect(items.map((item) => item?.n)).toEqual([0, 1, 2, 3]);
  });

  it('Given reads of another platform’s missing prices in flight, when a fresh account lists its destinations (reading its guarded secret), then no request answers 5xx', async () => {
    const other = (await newPlatform()).secret_key;
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      // A fresh account: its secret is not cached yet, so the list reads ACCOUNT_SECRET# from the table, a
      // partition the price reads' function may not touch.
      const fresh = (await newPlatform()).secret_key;
      const answers = await Promise.all([
        api('GET', '/v2/core/event_destinations?limit=1', { key: fresh }),
        ...Array.from({ length: 6 }, (_, i) => api('GET', `/v1/prices/price_missing${round}_${i}`, { key: other })),
      ]);
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([200, 404]));
  });
});
