import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  type BatchWriteCommandInput,
  type DeleteCommandInput,
  type PutCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { traced } from '#shared/observability.ts';
import { meterAwsCalls } from '#shared/aws-calls.ts';
import { config } from '#shared/config.ts';
import { serviceClientOptions, withoutCallLogging } from '#shared/sdk-clients.ts';
import { guardItemSizes } from './item-size.ts';

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
  /**
   * The hot paths' writes, taking the document client's inputs: sent as plain commands through a handler
   * chain resolved once per command type, instead of the document client's per-call middleware sort and
   * resolution (lib-dynamodb cannot reuse handlers). A failed condition throws as the document client does.
   */
  put(input: PutCommandInput): Promise<void>;
  delete(input: DeleteCommandInput): Promise<void>;
  /** Answers the item's attributes `ReturnValues` asks for, if any. */
  update(input: UpdateCommandInput): Promise<Item | undefined>;
  /** One BatchWriteItem call on this table; answers the requests DynamoDB left unprocessed. */
  batchWrite(requests: BatchWriteRequests): Promise<BatchWriteRequests>;
}

export type BatchWriteRequests = NonNullable<BatchWriteCommandInput['RequestItems']>[string];

const marshallOptions = { removeUndefinedValues: true };
const marshalled = (values: Item | undefined) => (values ? marshall(values, marshallOptions) : undefined);

/** A plain command's input, as the document client's input with the item, key and values marshalled. */
function plain<T extends { Item?: Item; Key?: Item; ExpressionAttributeValues?: Item }>(input: T) {
  const { Item: item, Key: key, ExpressionAttributeValues: values, ...rest } = input;
  return {
    ...rest,
    ...(item ? { Item: marshalled(item) } : {}),
    ...(key ? { Key: marshalled(key) } : {}),
    ...(values ? { ExpressionAttributeValues: marshalled(values) } : {}),
  };
}

type PlainCommand = PutItemCommand | DeleteItemCommand | UpdateItemCommand | BatchWriteItemCommand;
type Handler = (command: PlainCommand) => Promise<{ output: unknown }>;

/**
 * Sends plain commands on the document client's own client (its middleware stack and configuration),
 * resolving each command type's handler chain once, as the SDK's `cacheMiddleware` does for plain clients.
 */
function plainSender(client: DynamoDBDocumentClient) {
  const handlers = new Map<unknown, Handler>();
  return async <O>(command: PlainCommand): Promise<O> => {
    let handler = handlers.get(command.constructor);
    if (!handler) {
      handler = command.resolveMiddleware(client.middlewareStack as never, client.config as never, undefined) as unknown as Handler;
      handlers.set(command.constructor, handler);
    }
    return (await handler(command)).output as O;
  };
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
        for (const entry of chunk) for (const { resolve } of entry.resolvers) resolve(found.get(`${entry.key.PK}\u0000${entry.key.SK}`));
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
      const id = `${key.PK}\u0000${key.SK}`;
      const entry = waiting.get(id) ?? { key, resolvers: [] };
      entry.resolvers.push({ resolve, reject });
      waiting.set(id, entry);
    });
}

/** A table handle: the document client, the table name, the batched getter and the hot paths' writes. */
export function makeTable(client: DynamoDBDocumentClient, name: string): Table {
  let sender: ReturnType<typeof plainSender> | undefined;
  const send = <O>(command: PlainCommand) => {
    sender ??= plainSender(client);
    return sender<O>(command);
  };
  return {
    client,
    name,
    get: batchedGetter(client, name),
    put: async (input) => void (await send(new PutItemCommand(plain(input) as never))),
    delete: async (input) => void (await send(new DeleteItemCommand(plain(input) as never))),
    async update(input) {
      const { Attributes } = await send<{ Attributes?: Record<string, AttributeValue> }>(new UpdateItemCommand(plain(input) as never));
      return Attributes ? unmarshall(Attributes) : undefined;
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
      const { UnprocessedItems } = await send<{ UnprocessedItems?: Record<string, WriteRequest[]> }>(new BatchWriteItemCommand({ RequestItems }));
      return (UnprocessedItems?.[name] ?? []).map((request) => ({
        ...(request.PutRequest ? { PutRequest: { Item: unmarshall(request.PutRequest.Item!) } } : {}),
        ...(request.DeleteRequest ? { DeleteRequest: { Key: unmarshall(request.DeleteRequest.Key!) } } : {}),
      }));
    },
  };
}

let shared: Table | undefined;

/** The service table, created once per process (reused across warm invocations). */
export function serviceTable(): Table {
  if (!shared) {
    const { TABLE_NAME, DYNAMODB_ENDPOINT } = config();
    shared = makeTable(
      documentClient(traced(meterAwsCalls(guardItemSizes(withoutCallLogging(new DynamoDBClient(serviceClientOptions(DYNAMODB_ENDPOINT)))), 'dynamodb'))),
      TABLE_NAME,
    );
  }
  return shared;
}

export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
