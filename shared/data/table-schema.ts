/**
 * The single table's physical shape, read by the CDK stateful stack and by the local stack when it
 * creates the table in DynamoDB Local. Key values come from `keys.ts`; see TABLE_DESIGN.md.
 */
export const tableSchema = {
  partitionKey: 'PK',
  sortKey: 'SK',
  globalIndexes: [
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  ],
  /** Epoch seconds; DynamoDB deletes the item some time after it passes. Reads also filter on it. */
  timeToLiveAttribute: 'expiresAt',
} as const;

/** The local stack's table name; deployed stacks pass theirs through `TABLE_NAME`. */
export const localTableName = 'service';

/** What DynamoDB takes as a table name: 3 to 255 letters, digits, '_', '-' and '.'. */
export const tableNamePattern = /^[A-Za-z0-9_.-]{3,255}$/;
