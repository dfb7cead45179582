import { DynamoDBClient, PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { guardItemSizes, itemSize, maxItemBytes } from '#shared/data/item-size.ts';

// Nothing listens here: a request that got past the guard would fail with a connection error instead.
const client = () =>
  guardItemSizes(
    new DynamoDBClient({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 }),
  );

describe('the item size guard', () => {
  it('sizes items as DynamoDB does: names and values, nested maps and lists', () => {
    expect(itemSize(marshall({ ab: 'xyz' }) as never)).toBe(5);
    expect(itemSize(marshall({ m: { k: 'v', l: ['é'] } }) as never)).toBeGreaterThan(6);
  });

  it('refuses a put whose item is over the limit with a 400 before anything is sent', async () => {
    const big = { PK: 'a', SK: 'b', blob: 'x'.repeat(maxItemBytes + 1) };
    await expect(client().send(new PutItemCommand({ TableName: 't', Item: marshall(big) }))).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(client().send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: 't', Item: marshall(big) } }] }))).rejects.toMatchObject({
      code: 'object_too_large',
    });
  });

  it('lets a large transaction of small items through to the table', async () => {
    const items = Array.from({ length: 8 }, (_, i) => ({ Put: { TableName: 't', Item: marshall({ PK: `a${i}`, SK: 'b', blob: 'x'.repeat(60_000) }) } }));
    await expect(client().send(new TransactWriteItemsCommand({ TransactItems: items }))).rejects.not.toBeInstanceOf(InvalidRequestError);
  });
});
