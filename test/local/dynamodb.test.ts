import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalDynamoDbClient, ensureTable, startDynamoDbLocal, type DynamoDbLocal } from '#local/dynamodb.ts';

describe('DynamoDB Local in memory', () => {
  let dynamoDb: DynamoDbLocal;
  let client: DynamoDBClient;

  beforeAll(async () => {
    dynamoDb = await startDynamoDbLocal();
    client = createLocalDynamoDbClient(dynamoDb.endpoint, dynamoDb.credentials);
  });

  afterAll(async () => {
    client?.destroy();
    await dynamoDb?.stop();
  });

  it('starts on a free local port and stores and returns items', async () => {
    // Given a table made by ensureTable
    expect(dynamoDb.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await ensureTable(client, 'memory');

    // When an item is written
    await client.send(new PutItemCommand({ TableName: 'memory', Item: { PK: { S: 'a' }, SK: { S: 'b' }, n: { N: '1' } } }));

    // Then it reads back
    const { Item } = await client.send(new GetItemCommand({ TableName: 'memory', Key: { PK: { S: 'a' }, SK: { S: 'b' } } }));
    expect(Item?.n).toEqual({ N: '1' });
  });

  it('creates the table from the schema once and leaves it alone on later calls', async () => {
    // When ensureTable runs twice on a fresh name
    const first = await ensureTable(client, 'twice');
    const second = await ensureTable(client, 'twice');

    // Then the first call created the table and the second changed nothing
    expect([first, second]).toEqual(['created', 'unchanged']);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'twice' }));
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ]);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.Projection?.ProjectionType]).sort()).toEqual([
      ['GSI1', 'ALL'],
      ['GSI2', 'ALL'],
    ]);
    const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: 'twice' }));
    expect(TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });
  });

  it('adds the indexes and TTL a table made by an older schema lacks', async () => {
    // Given a table with only GSI1 and no TTL
    await client.send(
      new CreateTableCommand({
        TableName: 'older',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ['PK', 'SK', 'GSI1PK', 'GSI1SK'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'GSI1',
            KeySchema: [
              { AttributeName: 'GSI1PK', KeyType: 'HASH' },
              { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );

    // When ensureTable runs
    const outcome = await ensureTable(client, 'older');

    // Then GSI2 and TTL exist
    expect(outcome).toBe('updated');
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'older' }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(['GSI1', 'GSI2']);
    const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: 'older' }));
    expect(TimeToLiveDescription?.TimeToLiveStatus).toBe('ENABLED');
  });
});

describe('DynamoDB Local with a data directory', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dynamodb-local-test-'));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps tables and items across a restart, and stop shuts the server down', async () => {
    // Given an item written to a table in a data directory, then a stopped server
    const first = await startDynamoDbLocal({ dataDir });
    const firstClient = createLocalDynamoDbClient(first.endpoint, first.credentials);
    await ensureTable(firstClient, 'service');
    await firstClient.send(new PutItemCommand({ TableName: 'service', Item: { PK: { S: 'acct_1' }, SK: { S: 'profile' }, name: { S: 'Ada' } } }));
    await first.stop();
    await expect(firstClient.send(new ListTablesCommand({}))).rejects.toThrow();
    firstClient.destroy();

    // When a new server starts on the same directory
    const second = await startDynamoDbLocal({ dataDir });
    const secondClient = createLocalDynamoDbClient(second.endpoint, second.credentials);
    try {
      const outcome = await ensureTable(secondClient, 'service');

      // Then the table and the item are still there
      expect(outcome).toBe('unchanged');
      const { Item } = await secondClient.send(new GetItemCommand({ TableName: 'service', Key: { PK: { S: 'acct_1' }, SK: { S: 'profile' } } }));
      expect(Item?.name).toEqual({ S: 'Ada' });
    } finally {
      secondClient.destroy();
      await second.stop();
    }
  });
});

describe('DynamoDB Local without Java', () => {
  it('explains that Java 17+ is required and how to install it', async () => {
    // Given a PATH on which there is no java
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      // When DynamoDB Local is started, Then the error says what is missing and how to fix it
      await expect(startDynamoDbLocal()).rejects.toThrow(/Java 17 or newer.*apt-get install/s);
    } finally {
      process.env.PATH = path;
    }
  });
});
