import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { stackTable } from '../support/stack.ts';

describe("the table's hot-path writes (plain commands on reused handler chains)", () => {
  it('sends each call its own input, though every call of a type shares one handler chain', async () => {
    // Given a table handle and two items to put one after the other, then read back
    const table = stackTable();
    const prefix = `WRITES#${Date.now()}`;
    const first = { PK: `${prefix}#1`, SK: 'ITEM', n: 1, list: [{ at: 1, error: null }], nested: { a: 'x' }, skipped: undefined };
    const second = { PK: `${prefix}#2`, SK: 'ITEM', n: 2, list: [], nested: { b: true } };

    // When both are put and the first is updated with a list append
    await table.put({ TableName: table.name, Item: first });
    await table.put({ TableName: table.name, Item: second });
    await table.update({
      TableName: table.name,
      Key: { PK: first.PK, SK: 'ITEM' },
      UpdateExpression: 'SET n = :n, #list = list_append(#list, :more)',
      ExpressionAttributeNames: { '#list': 'list' },
      ExpressionAttributeValues: { ':n': 10, ':more': [{ at: 2, error: 'HTTP 500' }] },
    });

    // Then each item holds exactly its own values, numbers, nulls, lists and maps intact, undefined left out
    expect(await table.get({ PK: first.PK, SK: 'ITEM' })).toEqual({
      PK: first.PK,
      SK: 'ITEM',
      n: 10,
      list: [
        { at: 1, error: null },
        { at: 2, error: 'HTTP 500' },
      ],
      nested: { a: 'x' },
    });
    expect(await table.get({ PK: second.PK, SK: 'ITEM' })).toEqual(second);
  });

  it('throws a failed condition as ConditionalCheckFailedException, and deletes only when the condition holds', async () => {
    // Given a stored lease item
    const table = stackTable();
    const key = { PK: `WRITES#${Date.now()}#lease`, SK: 'LOCK' };
    await table.put({ TableName: table.name, Item: { ...key, owner: 'a' } });

    // When a put-if-absent, and then a delete by another owner, are tried (one at a time: a second rejection
    // that settles while the first is awaited would be reported as unhandled)
    // Then both fail their condition
    await expect(table.put({ TableName: table.name, Item: { ...key, owner: 'b' }, ConditionExpression: 'attribute_not_exists(PK)' })).rejects.toBeInstanceOf(
      ConditionalCheckFailedException,
    );
    const deleteByOther = table.delete({
      TableName: table.name,
      Key: key,
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':owner': 'b' },
    });
    await expect(deleteByOther).rejects.toBeInstanceOf(ConditionalCheckFailedException);

    // And the item is unchanged
    expect(await table.get(key)).toEqual({ ...key, owner: 'a' });

    // And the owner's delete removes it
    await table.delete({
      TableName: table.name,
      Key: key,
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':owner': 'a' },
    });
    expect(await table.get(key)).toBeUndefined();
  });

  it('writes a batch of puts and deletes in one call', async () => {
    // Given one stored item
    const table = stackTable();
    const prefix = `WRITES#${Date.now()}#batch`;
    await table.put({ TableName: table.name, Item: { PK: `${prefix}#old`, SK: 'ITEM' } });

    // When a batch puts two items and deletes the stored one
    const unprocessed = await table.batchWrite([
      { PutRequest: { Item: { PK: `${prefix}#a`, SK: 'ITEM', v: 'a' } } },
      { PutRequest: { Item: { PK: `${prefix}#b`, SK: 'ITEM', v: 'b' } } },
      { DeleteRequest: { Key: { PK: `${prefix}#old`, SK: 'ITEM' } } },
    ]);

    // Then nothing is left over and the table shows all three changes
    expect(unprocessed).toEqual([]);
    expect(await table.get({ PK: `${prefix}#a`, SK: 'ITEM' })).toEqual({ PK: `${prefix}#a`, SK: 'ITEM', v: 'a' });
    expect(await table.get({ PK: `${prefix}#b`, SK: 'ITEM' })).toEqual({ PK: `${prefix}#b`, SK: 'ITEM', v: 'b' });
    expect(await table.get({ PK: `${prefix}#old`, SK: 'ITEM' })).toBeUndefined();
  });
});
