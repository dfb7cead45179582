import type { AwsAction } from '#shared/aws/aws-calls.ts';
import { accountSecret, rateWindow } from '#shared/data/keys.ts';
import type { QueueName } from '#shared/messaging/queues.ts';

/**
 * What a function may touch, in the route table's words. Each becomes one IAM statement in the stack
 * (infra/service-function.ts), and the local stack refuses any call outside them as IAM would, so a
 * missing grant fails the tests instead of the first request on AWS.
 */
export type Permission =
  /** GetItem, BatchGetItem and Query, on the table and its indexes. */
  | 'table:read'
  /** PutItem, UpdateItem and the ConditionCheckItem of transactions. */
  | 'table:write'
  /** DeleteItem (deleted resources, released leases and slots). */
  | 'table:delete'
  /** BatchWriteItem (an outbox written outside a transaction). */
  | 'table:batch-write'
  /** UpdateItem on rate-limit counters only (`RATE#…` partitions): what a read-only route writes. */
  | 'table:count-requests'
  /**
   * GetItem on account secrets (`ACCOUNT_SECRET#…`): the functions that key page tokens, idempotency
   * fingerprints or card fingerprints with them. Every other function's role denies them (`guardedPartitions`).
   */
  | 'table:read-account-secrets'
  /** PutItem on account secrets: the write routes, which create the secret of an account made before accounts got theirs at creation. */
  | 'table:create-account-secrets'
  /** The secrets key's GenerateDataKey: seal a new or rolled webhook signing secret (shared/secrets/). */
  | 'secrets:seal'
  /** The secrets key's Decrypt: open a sealed signing secret (the delivery worker, to sign). */
  | 'secrets:open'
  | `queue:${QueueName}:send`
  | 'bus:put';

export type TablePermission = Extract<Permission, `table:${string}`>;
export type SecretsPermission = Extract<Permission, `secrets:${string}`>;

/** The KMS action each secrets permission grants, on the secrets key only, with the secret's encryption context. */
export const secretsActions: Record<SecretsPermission, string> = {
  'secrets:seal': 'kms:GenerateDataKey',
  'secrets:open': 'kms:Decrypt',
};

export interface TableStatement {
  /** DynamoDB actions, without the `dynamodb:` prefix. */
  actions: string[];
  /** IAM `dynamodb:LeadingKeys` patterns (`*` matches anything) the partition keys must match; absent: any key. */
  leadingKeys?: string[];
}

export const tableStatements: Record<TablePermission, TableStatement> = {
  'table:read': { actions: ['GetItem', 'BatchGetItem', 'Query'] },
  'table:write': { actions: ['PutItem', 'UpdateItem', 'ConditionCheckItem'] },
  'table:delete': { actions: ['DeleteItem'] },
  'table:batch-write': { actions: ['BatchWriteItem'] },
  'table:count-requests': { actions: ['UpdateItem'], leadingKeys: [`${rateWindow.prefix()}*`] },
  'table:read-account-secrets': { actions: ['GetItem'], leadingKeys: [`${accountSecret.prefix()}*`] },
  'table:create-account-secrets': { actions: ['PutItem'], leadingKeys: [`${accountSecret.prefix()}*`] },
};

/**
 * Partitions that `table:read` and `table:write` do not reach: a function without the named permission gets
 * an explicit IAM Deny of the reads (GetItem, BatchGetItem, Query) or of the writes (every other item action)
 * on the partitions `prefix` starts (`dynamodb:LeadingKeys`), and the local stack refuses the same.
 */
export const guardedPartitions: ReadonlyArray<{ prefix: string; read: TablePermission; write: TablePermission }> = [
  { prefix: accountSecret.prefix(), read: 'table:read-account-secrets', write: 'table:create-account-secrets' },
];

/** The item actions a guarded partition's Deny names, by kind. */
export const guardedActions = {
  read: ['GetItem', 'BatchGetItem', 'Query'],
  write: ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'ConditionCheckItem'],
};

const compiled = new Map<string, RegExp>();

/** IAM's `StringLike`: `*` matches any run of characters, `?` any one (each pattern compiled once). */
function like(pattern: string, value: string): boolean {
  let expression = compiled.get(pattern);
  if (!expression) {
    expression = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    compiled.set(pattern, expression);
  }
  return expression.test(value);
}

/** The queue a permission lets the function send to, if it is a queue permission. */
export const queueOf = (permission: Permission): QueueName | undefined =>
  permission.startsWith('queue:') ? (permission.slice('queue:'.length, -':send'.length) as QueueName) : undefined;

/**
 * Whether `permissions` allow one action, as the function's IAM policy would: `queueNameOf` tells which
 * of the service's queues a queue URL is.
 */
export function allows(permissions: readonly Permission[], { action, resource }: AwsAction, queueNameOf: (url: string) => string | undefined): boolean {
  const [service, name] = action.split(':') as [string, string];
  if (service === 'sqs') {
    const queue = resource ? queueNameOf(resource) : undefined;
    return name === 'SendMessage' && queue !== undefined && permissions.includes(`queue:${queue}:send` as Permission);
  }
  if (service === 'events') return name === 'PutEvents' && permissions.includes('bus:put');
  if (service === 'kms') return permissions.some((permission) => secretsActions[permission as SecretsPermission] === action);
  const guarded = resource === undefined ? undefined : guardedPartitions.find((partition) => resource.startsWith(partition.prefix));
  if (guarded && !permissions.includes(guardedActions.read.includes(name) ? guarded.read : guarded.write)) return false;
  return permissions.some((permission) => {
    const statement = tableStatements[permission as TablePermission];
    if (!statement?.actions.includes(name)) return false;
    if (!statement.leadingKeys) return true;
    return resource !== undefined && statement.leadingKeys.some((pattern) => like(pattern, resource));
  });
}
