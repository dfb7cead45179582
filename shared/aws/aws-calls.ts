import { AsyncLocalStorage } from 'node:async_hooks';
import { itemSize } from '#shared/data/item-size.ts';
import { tableSchema } from '#shared/data/table-schema.ts';

/**
 * One request to an AWS service as IAM authorizes it: a transaction or a batch write is one call on the
 * wire but one authorization per item, so it is recorded as one {@link AwsAction} per item.
 */
export interface AwsAction {
  /** IAM's name: `dynamodb:PutItem`, `sqs:SendMessage`, `events:PutEvents`, `kms:Decrypt`. */
  action: string;
  /** The item's partition key (DynamoDB), the queue URL (SQS), the bus name (EventBridge) or the key (KMS); absent for a query. */
  resource?: string;
}

/** What one call cost, as the service reported it (DynamoDB's `ConsumedCapacity`; 0 elsewhere). */
export interface AwsCall {
  /** The operation on the wire: `PutItem`, `TransactWriteItems`, `SendMessageBatch`… */
  operation: string;
  actions: AwsAction[];
  readUnits: number;
  writeUnits: number;
  /** How long the call took, from the client's middleware to its answer. */
  millis: number;
}

/**
 * Calls made inside {@link withCallScope}: recorded, and first shown to `authorize`, which may refuse one
 * by throwing (the local stack refuses what the function's IAM policy would refuse on AWS).
 */
export interface CallScope {
  calls: AwsCall[];
  authorize?: (actions: AwsAction[]) => void;
  /**
   * Whether DynamoDB is asked for the capacity each call consumed (`ReturnConsumedCapacity`); otherwise
   * calls are recorded with 0 units. Asking costs DynamoDB Local noticeable time per call.
   */
  measure?: boolean;
}

const scopes = new AsyncLocalStorage<CallScope>();

/** Runs `work` with its AWS calls recorded in (and authorized by) `scope`. */
export function withCallScope<T>(scope: CallScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** The call scope the current async context runs in (undefined outside one): what a batch of reads must not cross. */
export const currentCallScope = (): CallScope | undefined => scopes.getStore();

/** A fresh scope with nothing recorded. */
export const callScope = (options: Pick<CallScope, 'authorize' | 'measure'> = {}): CallScope => ({ calls: [], ...options });

/** Calls, read units and write units of a scope, summed. */
export function callTotals(scope: CallScope): { calls: number; readUnits: number; writeUnits: number } {
  return scope.calls.reduce(
    (sum, call) => ({ calls: sum.calls + 1, readUnits: sum.readUnits + call.readUnits, writeUnits: sum.writeUnits + call.writeUnits }),
    { calls: 0, readUnits: 0, writeUnits: 0 },
  );
}

type Input = Record<string, unknown>;
type Service = 'dynamodb' | 'sqs' | 'events' | 'kms';

/** A key attribute as the document client (`'x'`) or a plain command (`{ S: 'x' }`) carries it. */
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof (value as { S?: unknown } | undefined)?.S === 'string' ? (value as { S: string }).S : undefined;
const partitionOf = (item: unknown) => text((item as Input | undefined)?.PK);

const dynamoReads = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/** The IAM actions of one DynamoDB request, each with the partition key it touches. */
function dynamoActions(operation: string, input: Input): AwsAction[] {
  const one = (action: string, item: unknown): AwsAction => {
    const resource = partitionOf(item);
    return { action: `dynamodb:${action}`, ...(resource ? { resource } : {}) };
  };
  if (operation === 'TransactWriteItems') {
    return ((input.TransactItems as Input[] | undefined) ?? []).map((entry) => {
      if (entry.Put) return one('PutItem', (entry.Put as Input).Item);
      if (entry.Update) return one('UpdateItem', (entry.Update as Input).Key);
      if (entry.Delete) return one('DeleteItem', (entry.Delete as Input).Key);
      return one('ConditionCheckItem', (entry.ConditionCheck as Input | undefined)?.Key);
    });
  }
  if (operation === 'TransactGetItems') {
    return ((input.TransactItems as Input[] | undefined) ?? []).map((entry) => one('GetItem', (entry.Get as Input | undefined)?.Key));
  }
  if (operation === 'BatchWriteItem' || operation === 'BatchGetItem') {
    const requests = Object.values((input.RequestItems as Record<string, unknown> | undefined) ?? {});
    if (operation === 'BatchGetItem')
      return requests.flatMap((request) => ((request as { Keys?: unknown[] }).Keys ?? []).map((key) => one('BatchGetItem', key)));
    // BatchWriteItem is authorized as itself, whatever the requests inside it.
    return requests.flatMap((list) =>
      (list as Input[]).map((request) =>
        one('BatchWriteItem', (request.PutRequest as Input | undefined)?.Item ?? (request.DeleteRequest as Input | undefined)?.Key),
      ),
    );
  }
  if (operation === 'Query' || operation === 'Scan') return [{ action: `dynamodb:${operation}` }];
  return [one(operation, input.Key ?? input.Item)];
}

function actionsOf(service: Service, operation: string, input: Input): AwsAction[] {
  if (service === 'dynamodb') return dynamoActions(operation, input);
  if (service === 'kms') return [{ action: `kms:${operation}`, ...(typeof input.KeyId === 'string' ? { resource: input.KeyId } : {}) }];
  if (service === 'sqs') {
    // SendMessageBatch is authorized as sqs:SendMessage.
    const action = operation === 'SendMessageBatch' ? 'SendMessage' : operation;
    return [{ action: `sqs:${action}`, ...(typeof input.QueueUrl === 'string' ? { resource: input.QueueUrl } : {}) }];
  }
  const buses = new Set(
    ((input.Entries as Input[] | undefined) ?? []).map((entry) => (typeof entry.EventBusName === 'string' ? entry.EventBusName : 'default')),
  );
  return [...buses].map((resource) => ({ action: `events:${operation}`, resource }));
}

function capacityOf(output: Input | undefined): number {
  const consumed = output?.ConsumedCapacity;
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((sum: number, entry: { CapacityUnits?: number }) => sum + (entry.CapacityUnits ?? 0), 0);
}

/** An item's size in KB, rounded up, by DynamoDB's rules (the table sends items marshalled). */
const kilobytes = (item: unknown) => Math.max(1, Math.ceil(itemSize((item ?? {}) as Parameters<typeof itemSize>[0]) / 1024));
const indexKeys = tableSchema.globalIndexes.map((index) => index.partitionKey);

/**
 * The write units of a transaction as DynamoDB bills them: 2 per KB of each item (a condition check
 * too), plus 1 per KB for each index entry a put writes and 1 for each index key an update sets or
 * removes. Counted from the request because DynamoDB Local bills a whole multi-item transaction like a
 * single item; sizes by DynamoDB's rules from the marshalled request, an updated item counts as 1 KB.
 */
function transactionWriteUnits(input: Input): number {
  let units = 0;
  for (const entry of (input.TransactItems as Input[] | undefined) ?? []) {
    if (entry.Put) {
      const item = (entry.Put as Input).Item as Input | undefined;
      const size = kilobytes(item);
      units += 2 * size + indexKeys.filter((key) => item?.[key] !== undefined).length * size;
    } else if (entry.Update) {
      const expression = String((entry.Update as Input).UpdateExpression ?? '');
      units += 2 + indexKeys.filter((key) => new RegExp(`\\b${key}\\b`).test(expression)).length;
    } else {
      units += 2;
    }
  }
  return units;
}

interface MiddlewareClient {
  middlewareStack: {
    add(middleware: unknown, options: { step: 'initialize'; name: string; override?: boolean }): void;
  };
}

/**
 * Records every call of `client` made inside a {@link withCallScope} (and lets the scope refuse it first).
 * DynamoDB calls ask for `ReturnConsumedCapacity: INDEXES` inside a scope, so the record holds the read and
 * write units the table and its indexes consumed. Outside a scope a call goes out untouched.
 */
export function meterAwsCalls<T extends MiddlewareClient>(client: T, service: Service): T {
  client.middlewareStack.add(
    (next: (args: { input: Input }) => Promise<{ output?: Input }>, context: { commandName?: string }) => async (args: { input: Input }) => {
      const scope = scopes.getStore();
      if (!scope) return next(args);
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      const actions = actionsOf(service, operation, args.input);
      scope.authorize?.(actions);
      const measured = scope.measure === true && service === 'dynamodb';
      const input = measured && args.input.ReturnConsumedCapacity === undefined ? { ...args.input, ReturnConsumedCapacity: 'INDEXES' } : args.input;
      const started = performance.now();
      const result = await next({ ...args, input });
      const millis = performance.now() - started;
      const units = !measured ? 0 : operation === 'TransactWriteItems' ? transactionWriteUnits(args.input) : capacityOf(result.output);
      const reads = service === 'dynamodb' && dynamoReads.has(operation);
      scope.calls.push({ operation, actions, readUnits: reads ? units : 0, writeUnits: reads ? 0 : units, millis });
      return result;
    },
    { step: 'initialize', name: 'meterAwsCalls', override: true },
  );
  return client;
}
