import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type {
  BatchWriteCommandInput,
  DeleteCommandInput,
  PutCommandInput,
  QueryCommandInput,
  ScanCommandInput,
  TransactWriteCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { systemClock, type Clock } from '#shared/core/clock.ts';
import { config } from '#shared/core/config.ts';
import { currentCallScope } from '#shared/aws/aws-calls.ts';
import { reusedHandlers, serviceClients } from '#shared/aws/sdk-clients.ts';

export type Item = Record<string, unknown>;
export type ItemKey = { PK: string; SK: string };
/** One action of a transaction, as the document client writes it (plain values, not attribute values). */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type BatchWriteRequests = NonNullable<BatchWriteCommandInput['RequestItems']>[string];

/** One page of a query: its items and, when DynamoDB stopped early, where the next page starts. */
export interface QueryPage {
  items: Item[];
  lastKey?: Item;
}

/**
 * The one way to the table. Inputs are the document client's (plain values); each call is one DynamoDB
 * request made with plain commands on a client that resolves each command's middleware once. A failed
 * condition throws the SDK's error with the item it found (`ReturnValuesOnConditionCheckFailure`) already
 * unmarshalled in `Item`, in a transaction's `CancellationReasons` too.
 */
export interface Table {
  readonly name: string;
  /** Where every store reads "now" from. */
  readonly clock: Clock;
  /**
   * GetItem, batched: every `get` issued in the same turn of the event loop goes out in one BatchGetItem
   * (up to 100 keys; a get alone in its turn is one GetItem). A worker's batch of records, and requests a busy process answers together, share one
   * call: DynamoDB's cost is mostly per request, not per key.
   */
  get(key: ItemKey): Promise<Item | undefined>;
  /** GetItem, strongly consistent (never batched). */
  getConsistent(key: ItemKey): Promise<Item | undefined>;
  /** Each write answers the attributes its `ReturnValues` asks for, if any. */
  put(input: PutCommandInput): Promise<Item | undefined>;
  update(input: UpdateCommandInput): Promise<Item | undefined>;
  delete(input: DeleteCommandInput): Promise<Item | undefined>;
  /** One Query request (one page). */
  query(input: QueryCommandInput): Promise<QueryPage>;
  /**
   * One Scan request (one page). For local tooling only (`local/lease-recovery.ts`): no access pattern of the
   * service scans, and the deployed functions have no Scan permission.
   */
  scan(input: ScanCommandInput): Promise<QueryPage>;
  /** One TransactWriteItems request. */
  transact(items: TransactItem[]): Promise<void>;
  /** One BatchWriteItem request; answers the requests DynamoDB left unprocessed. */
  batchWrite(requests: BatchWriteRequests): Promise<BatchWriteRequests>;
}

const marshallOptions = { removeUndefinedValues: true };
type Marshalled = Record<string, AttributeValue>;
const marshalled = (values: Item | undefined): Marshalled | undefined => (values ? marshall(values, marshallOptions) : undefined);
const unmarshalled = (values: Marshalled | undefined): Item | undefined => (values ? unmarshall(values) : undefined);

/** A plain command's input: the document client's input with its item, key, values and start key marshalled. */
function plain<T extends { Item?: Item; Key?: Item; ExpressionAttributeValues?: Item; ExclusiveStartKey?: Item }>(input: T) {
  const { Item: item, Key: key, ExpressionAttributeValues: values, ExclusiveStartKey: start, ...rest } = input;
  return {
    ...rest,
    ...(item ? { Item: marshalled(item) } : {}),
    ...(key ? { Key: marshalled(key) } : {}),
    ...(values ? { ExpressionAttributeValues: marshalled(values) } : {}),
    ...(start ? { ExclusiveStartKey: marshalled(start) } : {}),
  };
}

const transactAction = (action: TransactItem) =>
  Object.fromEntries(Object.entries(action).map(([kind, input]) => [kind, input ? plain(input as Parameters<typeof plain>[0]) : input]));

/** The items a failed condition carries, unmarshalled in place, so callers never see attribute values. */
function withPlainItems(error: unknown): unknown {
  const failure = error as { Item?: Marshalled; CancellationReasons?: Array<{ Item?: Marshalled }> };
  if (failure && typeof failure === 'object') {
    if (failure.Item) failure.Item = unmarshalled(failure.Item) as Marshalled;
    for (const reason of failure.CancellationReasons ?? []) if (reason.Item) reason.Item = unmarshalled(reason.Item) as Marshalled;
  }
  return error;
}

const maxBatchKeys = 100;

/**
 * Gets coalesce only within one call scope (one function invocation): the local stack serves every function
 * in one process, and a batch flushed in one invocation's scope is authorized and measured as that function's.
 */
function batchedGetter(send: Send, name: string): Table['get'] {
  const getters = new WeakMap<object, Table['get']>();
  const outside = scopeBatchedGetter(send, name);
  return (key) => {
    const scope = currentCallScope();
    if (!scope) return outside(key);
    let getter = getters.get(scope);
    if (!getter) {
      getter = scopeBatchedGetter(send, name);
      getters.set(scope, getter);
    }
    return getter(key);
  };
}

function scopeBatchedGetter(send: Send, name: string): Table['get'] {
  let waiting = new Map<string, { key: ItemKey; resolvers: Array<{ resolve: (item: Item | undefined) => void; reject: (error: unknown) => void }> }>();
  const idOf = (key: { PK?: unknown; SK?: unknown }) => `${key.PK}\u0000${key.SK}`;

  async function flush(batch: typeof waiting): Promise<void> {
    const entries = [...batch.values()];
    for (let start = 0; start < entries.length; start += maxBatchKeys) {
      const chunk = entries.slice(start, start + maxBatchKeys);
      try {
        const found = new Map<string, Item>();
        let keys = chunk.map((entry) => marshalled(entry.key)!);
        if (keys.length === 1) {
          // A get alone in its turn is a plain GetItem: the same read units, and no batch to unpack.
          const { Item } = await send(new GetItemCommand({ TableName: name, Key: keys[0]! }));
          if (Item) found.set(idOf(chunk[0]!.key), unmarshall(Item));
          keys = [];
        }
        for (let round = 0; keys.length > 0; round++) {
          const { Responses, UnprocessedKeys } = await send(new BatchGetItemCommand({ RequestItems: { [name]: { Keys: keys } } }));
          for (const item of Responses?.[name] ?? []) {
            const plainItem = unmarshall(item);
            found.set(idOf(plainItem), plainItem);
          }
          keys = UnprocessedKeys?.[name]?.Keys ?? [];
          if (keys.length > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** round)));
        }
        for (const entry of chunk) for (const { resolve } of entry.resolvers) resolve(found.get(idOf(entry.key)));
      } catch (error) {
        for (const entry of chunk) for (const { reject } of entry.resolvers) reject(error);
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
      const id = idOf(key);
      const entry = waiting.get(id) ?? { key, resolvers: [] };
      entry.resolvers.push({ resolve, reject });
      waiting.set(id, entry);
    });
}

type Send = DynamoDBClient['send'];

/**
 * A table handle on `client` (which should reuse resolved handlers: {@link tableClient}), reading the time
 * from `clock`.
 */
/** Every item a Query matches, page after page (for reads bounded by their key condition, such as a usage range). */
export async function queryAll(table: Pick<Table, 'query'>, input: Parameters<Table['query']>[0]): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await table.query({ ...input, ExclusiveStartKey });
    items.push(...page.items);
    ExclusiveStartKey = page.lastKey;
  } while (ExclusiveStartKey);
  return items;
}

export function makeTable(client: DynamoDBClient, name: string, clock: Clock = systemClock): Table {
  const send = (async (command: Parameters<Send>[0]) => {
    try {
      return await client.send(command);
    } catch (error) {
      throw withPlainItems(error);
    }
  }) as Send;
  return {
    name,
    clock,
    get: batchedGetter(send, name),
    async getConsistent(key) {
      const { Item } = await send(new GetItemCommand({ TableName: name, Key: marshalled(key)!, ConsistentRead: true }));
      return unmarshalled(Item);
    },
    put: async (input) => unmarshalled((await send(new PutItemCommand(plain(input) as never))).Attributes),
    delete: async (input) => unmarshalled((await send(new DeleteItemCommand(plain(input) as never))).Attributes),
    update: async (input) => unmarshalled((await send(new UpdateItemCommand(plain(input) as never))).Attributes),
    async query(input) {
      const { Items = [], LastEvaluatedKey } = await send(new QueryCommand(plain(input) as never));
      return { items: Items.map((item) => unmarshall(item)), ...(LastEvaluatedKey ? { lastKey: unmarshall(LastEvaluatedKey) } : {}) };
    },
    async scan(input) {
      const { Items = [], LastEvaluatedKey } = await send(new ScanCommand(plain(input) as never));
      return { items: Items.map((item) => unmarshall(item)), ...(LastEvaluatedKey ? { lastKey: unmarshall(LastEvaluatedKey) } : {}) };
    },
    async transact(items) {
      await send(new TransactWriteItemsCommand({ TransactItems: items.map(transactAction) as never }));
    },
    async batchWrite(requests) {
      const RequestItems = {
        [name]: requests.map(
          (request): WriteRequest => ({
            ...(request.PutRequest ? { PutRequest: { Item: marshalled(request.PutRequest.Item)! } } : {}),
            ...(request.DeleteRequest ? { DeleteRequest: { Key: marshalled(request.DeleteRequest.Key)! } } : {}),
          }),
        ),
      };
      const { UnprocessedItems } = await send(new BatchWriteItemCommand({ RequestItems }));
      return (UnprocessedItems?.[name] ?? []).map((request) => ({
        ...(request.PutRequest ? { PutRequest: { Item: unmarshall(request.PutRequest.Item!) } } : {}),
        ...(request.DeleteRequest ? { DeleteRequest: { Key: unmarshall(request.DeleteRequest.Key!) } } : {}),
      }));
    },
  };
}

/** A DynamoDB client for {@link makeTable}: each command's handler chain is resolved once and reused. */
export const tableClient = (options: ConstructorParameters<typeof DynamoDBClient>[0] = {}): DynamoDBClient =>
  new DynamoDBClient({ ...options, ...reusedHandlers });

let shared: Table | undefined;

/** The service table, created once per process (reused across warm invocations). */
export function serviceTable(): Table {
  if (!shared) {
    shared = makeTable(serviceClients.dynamodb(), config().TABLE_NAME);
  }
  return shared;
}
