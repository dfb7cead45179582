import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { makeTable } from '#shared/data/table.ts';
import { stackClient, stackTable } from '../support/stack.ts';

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
});
