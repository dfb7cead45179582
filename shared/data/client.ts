import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config.ts';
import { serviceClientOptions, withoutCallLogging } from '#shared/sdk-clients.ts';

export type ItemKey = { PK: string; SK: string };
type Item = Record<string, unknown>;

export interface Table {
  client: DynamoDBDocumentClient;
  name: string;
  /**
   * GetItem, batched: every `get` issued in the same turn of the event loop goes out in one BatchGetItem
   * (up to 100 keys). A worker's batch of records, and requests a busy process answers together, share one
   * call: DynamoDB's cost is mostly per request, not per key.
   */
  get(key: ItemKey): Promise<Item | undefined>;
}

const maxBatchKeys = 100;

function batchedGetter(client: DynamoDBDocumentClient, name: string): Table['get'] {
  let waiting = new Map<string, { key: ItemKey; resolvers: Array<{ resolve: (item: Item | undefined) => void; reject: (error: unknown) => void }> }>();

  async function flush(batch: typeof waiting): Promise<void> {
    const entries = [...batch.values()];
    for (let start = 0; start < entries.length; start += maxBatchKeys) {
      const chunk = entries.slice(start, start + maxBatchKeys);
      try {
        const found = new Map<string, Item>();
        let keys: Item[] = chunk.map((entry) => entry.key);
        for (let round = 0; keys.length > 0; round++) {
          const { Responses, UnprocessedKeys } = await client.send(new BatchGetCommand({ RequestItems: { [name]: { Keys: keys } } }));
          for (const item of Responses?.[name] ?? []) found.set(`${item.PK}\u0000${item.SK}`, item);
          keys = UnprocessedKeys?.[name]?.Keys ?? [];
          if (keys.length > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** round)));
        }
        for (const entry of chunk) entry.resolvers.forEach(({ resolve }) => resolve(found.get(`${entry.key.PK}\u0000${entry.key.SK}`)));
      } catch (error) {
        for (const entry of chunk) entry.resolvers.forEach(({ reject }) => reject(error));
      }
    }
  }

  return (key) =>
    new Promise((resolve, reject) => {
      if (waiting.size === 0) {
        // After the I/O callbacks of this turn, not after the current microtasks: gets that arrive in
        // separate callbacks of one turn (answers to concurrent requests) then coalesce too.
        setImmediate(() => {
          const batch = waiting;
          waiting = new Map();
          void flush(batch);
        });
      }
      const id = `${key.PK}\u0000${key.SK}`;
      const entry = waiting.get(id) ?? { key, resolvers: [] };
      entry.resolvers.push({ resolve, reject });
      waiting.set(id, entry);
    });
}

/** A table handle: the document client, the table name and the batched getter. */
export function makeTable(client: DynamoDBDocumentClient, name: string): Table {
  return { client, name, get: batchedGetter(client, name) };
}

let shared: Table | undefined;

/** The service table, created once per process (reused across warm invocations). */
export function serviceTable(): Table {
  if (!shared) {
    const { TABLE_NAME, DYNAMODB_ENDPOINT } = config();
    shared = makeTable(documentClient(withoutCallLogging(new DynamoDBClient(serviceClientOptions(DYNAMODB_ENDPOINT)))), TABLE_NAME);
  }
  return shared;
}

export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
