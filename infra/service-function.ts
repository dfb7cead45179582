import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  guardedActions,
  guardedPartitions,
  queueOf,
  secretsActions,
  tableStatements,
  type Permission,
  type SecretsPermission,
  type TablePermission,
} from '#functions/permissions.ts';
import { tableSchema } from '#shared/data/table-schema.ts';
import { encryptionContext } from '#shared/secrets/secret-box.ts';
import type { QueueName } from '#shared/messaging/queues.ts';
import { queues as queueDefinitions } from '#shared/messaging/queues.ts';

/** The repository root: entry paths in the route table are relative to it, and esbuild bundles from it. */
export const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

export interface ServiceQueue {
  queue: IQueue;
  deadLetterQueue: IQueue;
}

/** The stateful resources every function is told about (environment) and may be granted access to. */
export interface ServiceResources {
  table: ITable;
  /** The vault of the table's daily backups: its failed jobs alarm. */
  backupVaultName?: string;
  eventBus: IEventBus;
  queues: Record<QueueName, ServiceQueue>;
  /** The key that seals webhook signing secrets (`SECRETS_KEY_ID`); `secrets:*` permissions need it. */
  secretsKey?: IKey;
}

export interface ServiceFunctionProps {
  /** Handler entry file relative to the repository root; it must export `handler`. */
  entry: string;
  resources: ServiceResources;
  /**
   * What the function may touch; each permission becomes one least-privilege grant.
   * @default - none beyond writing to its own log group
   */
  permissions?: Permission[];
  /**
   * API Gateway gives up on an integration after 30 s, so API functions must stay below that.
   * @default Duration.seconds(10)
   */
  timeout?: Duration;
  /** @default 512 */
  memorySize?: number;
  /**
   * How long the function's log group keeps its logs; the group itself outlives the function.
   * @default RetentionDays.THIRTEEN_MONTHS
   */
  logRetention?: RetentionDays;
  /**
   * The level of application logs: Lambda's JSON log filter and `POWERTOOLS_LOG_LEVEL` for Powertools Logger.
   * @default 'INFO'
   */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Lambda's active X-Ray tracing: Lambda itself records each sampled invocation (its init, duration and
   * outcome) and the trace header the API passes; no tracing SDK is in the bundle (the X-Ray SDKs reach end
   * of support on 2027-02-25, docs/operations.md#tracing).
   * @default true
   */
  tracing?: boolean;
  /**
   * `POWERTOOLS_SERVICE_NAME`, the `service` key of every log line.
   * @default 'service-api'
   */
  serviceName?: string;
  /**
   * Extra variables, set over the common ones (TABLE_NAME, EVENT_BUS_NAME and every queue URL variable).
   * @default {}
   */
  environment?: Record<string, string>;
}

/** The Lambda runtime, and the esbuild target that matches it. */
export const lambdaRuntime = Runtime.NODEJS_24_X;
export const bundleTarget = 'node24';

/**
 * Credential providers a function never reaches on Lambda, where the default chain stops at the first one,
 * the environment's variables (the role's session): SSO, shared ini files, credential processes, web
 * identity tokens and console logins, with the STS and SSO clients they bring (about 70 KiB of each bundle).
 * Left out of the bundle, a chain that somehow got past the environment would fail to import them and say so.
 */
const unusedOnLambda = [
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-login',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/nested-clients',
  '@aws-sdk/token-providers',
];

/**
 * How every function is bundled, in esbuild's own terms: the stack passes these to NodejsFunction and
 * `npm run bundles` to esbuild, so the sizes it prints are those of the deployed zips. Fully minified,
 * but `keepNames` sets every function's and class's `name` to its source name, which V8 prints in stack
 * traces, so a trace names the functions it passed through without a source map (none ships: it would
 * double the asset and slow every cold start).
 */
export const bundling = {
  format: 'esm',
  platform: 'node',
  target: bundleTarget,
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  keepNames: true,
  external: unusedOnLambda,
  sourcemap: false,
  mainFields: ['module', 'main'],
  // Bundled CommonJS dependencies still call require() for Node built-ins, which ESM lacks.
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
} as const;

/** `bundling` as esbuild's own build options, for the tests and `npm run bundles`. */
export const esbuildOptions = {
  ...bundling,
  bundle: true,
  mainFields: [...bundling.mainFields],
  external: [...bundling.external],
  banner: { js: bundling.banner },
};

/**
 * A Lambda function of this service with the defaults every function shares: Node.js 24 on arm64, an ESM
 * bundle built by the local esbuild (no Docker, settings in `bundling`), its own retained log group
 * receiving JSON logs, Lambda's active X-Ray tracing (no SDK in the bundle), a role that
 * starts with nothing but that log group and the trace daemon, and the environment `shared/core/config.ts` parses.
 *
 * The AWS SDK is bundled rather than taken from the runtime, so the deployed code runs the SDK version
 * the lockfile pins and the tests ran, not whatever the runtime ships that month.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  /**
   * `live`: what API Gateway, the queues and the schedules invoke. Each deploy that changes the function
   * publishes a version, and CodeDeploy shifts this alias to it (infra/stateless-stack.ts).
   */
  readonly alias: Alias;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RetentionDays.THIRTEEN_MONTHS,
      // An audit may ask for the logs of a function that has since been removed: they expire, not vanish.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Not the default role: it would attach AWSLambdaBasicExecutionRole, which may write to any log group.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(repositoryRoot, props.entry),
      handler: 'handler',
      projectRoot: repositoryRoot,
      depsLockFilePath: join(repositoryRoot, 'package-lock.json'),
      runtime: lambdaRuntime,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[props.logLevel ?? 'INFO'],
      systemLogLevelV2: SystemLogLevel.WARN,
      tracing: props.tracing === false ? Tracing.DISABLED : Tracing.ACTIVE,
      // A replaced version is kept, so `live` can be shifted back to it by hand (docs/operations.md, Deploys:
      // rollout and rollback); each full release adds ~150 MB against Lambda's 75 GB code storage.
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
      environment: {
        ...commonEnvironment(props.resources),
        POWERTOOLS_SERVICE_NAME: props.serviceName ?? 'service-api',
        POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: bundling.target,
        esbuildArgs: {
          '--minify-whitespace': bundling.minifyWhitespace,
          '--minify-syntax': bundling.minifySyntax,
          '--minify-identifiers': bundling.minifyIdentifiers,
        },
        externalModules: [...bundling.external],
        keepNames: bundling.keepNames,
        sourceMap: bundling.sourcemap,
        mainFields: [...bundling.mainFields],
        banner: bundling.banner,
        bundleAwsSDK: true,
        logLevel: LogLevel.WARNING,
      },
    });

    this.alias = new Alias(this, 'LiveAlias', { aliasName: liveAliasName, version: this.function.currentVersion });

    for (const permission of props.permissions ?? []) {
      grant(this.function, permission, props.resources);
    }
    denyGuardedPartitions(this.function, props.permissions ?? [], props.resources);
  }
}

/** The alias every trigger invokes. */
export const liveAliasName = 'live';

/** The variables `shared/core/config.ts` reads to find the stateful resources. */
function commonEnvironment(resources: ServiceResources): Record<string, string> {
  const environment: Record<string, string> = {
    TABLE_NAME: resources.table.tableName,
    EVENT_BUS_NAME: resources.eventBus.eventBusName,
    ...(resources.secretsKey ? { SECRETS_KEY_ID: resources.secretsKey.keyArn } : {}),
  };
  for (const [name, definition] of Object.entries(queueDefinitions)) {
    environment[definition.urlVariable] = resources.queues[name as QueueName].queue.queueUrl;
  }
  return environment;
}

/** The CloudWatch namespace of the service's own metrics (Powertools Metrics, infra/monitoring.ts). */
export const metricsNamespace = 'ServiceApi';

/**
 * One permission as one IAM statement with exactly the actions of functions/permissions.ts: the table's
 * actions on the table (and on its indexes for Query), limited by `dynamodb:LeadingKeys` where the
 * permission names partitions, plus the use of the table's KMS key; a queue's SendMessage; the bus's
 * PutEvents. Transactions and batches are authorized per item by these same actions.
 */
function grant(fn: NodejsFunction, permission: Permission, resources: ServiceResources): void {
  if (permission === 'bus:put') {
    resources.eventBus.grantPutEventsTo(fn);
    return;
  }
  const secretsAction = secretsActions[permission as SecretsPermission];
  if (secretsAction) {
    if (!resources.secretsKey) throw new Error(`Permission ${permission} needs the secrets key in the service's resources`);
    // Only with the context the box binds every data key to (shared/secrets/secret-box.ts): no other use of the key.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [secretsAction],
        resources: [resources.secretsKey.keyArn],
        conditions: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': secretContextKeys },
          Null: { 'kms:EncryptionContextKeys': 'false' },
        },
      }),
    );
    return;
  }
  const queueName = queueOf(permission);
  if (queueName) {
    const queue = resources.queues[queueName];
    if (!queue) throw new Error(`Unknown queue in permission ${permission}`);
    queue.queue.grantSendMessages(fn);
    return;
  }
  const statement = tableStatements[permission as TablePermission];
  if (!statement) throw new Error(`Unknown permission ${permission}`);
  const { table } = resources;
  const indexArns = statement.actions.includes('Query') ? tableSchema.globalIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`) : [];
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: statement.actions.map((action) => `dynamodb:${action}`),
      resources: [table.tableArn, ...indexArns],
      ...(statement.leadingKeys ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': statement.leadingKeys } } } : {}),
    }),
  );
  // DynamoDB decrypts what it returns and encrypts what it stores with the caller's use of the key, and
  // only DynamoDB may use it on the function's behalf.
  if (table.encryptionKey) {
    const readsOnly = statement.actions.every((action) => ['GetItem', 'BatchGetItem', 'Query'].includes(action));
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: readsOnly ? keyActions.read : [...keyActions.read, ...keyActions.write],
        resources: [table.encryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Stack.of(fn).region}.amazonaws.com` } },
      }),
    );
  }
}

/**
 * The explicit Deny that keeps a function out of the guarded partitions (account secrets) it has no
 * permission for, whatever its `table:read` and `table:write` allow: reads where it lacks the read
 * permission, writes where it lacks the write permission (`dynamodb:LeadingKeys`, on the table and its indexes).
 */
function denyGuardedPartitions(fn: NodejsFunction, permissions: readonly Permission[], { table }: ServiceResources): void {
  if (!permissions.some((permission) => permission.startsWith('table:'))) return;
  for (const partition of guardedPartitions) {
    const actions = [
      ...(permissions.includes(partition.read) ? [] : guardedActions.read),
      ...(permissions.includes(partition.write) ? [] : guardedActions.write),
    ];
    if (actions.length === 0) continue;
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [table.tableArn, ...tableSchema.globalIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`)],
        conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [`${partition.prefix}*`] } },
      }),
    );
  }
}

/** The encryption context keys of every sealed secret, as the box names them. */
const secretContextKeys = Object.keys(encryptionContext({ accountId: '', livemode: false, objectId: '' }));

/** What DynamoDB needs of a caller's key permissions to read and to write an encrypted table; no wildcard. */
const keyActions = {
  read: ['kms:Decrypt', 'kms:DescribeKey'],
  write: ['kms:Encrypt', 'kms:GenerateDataKey', 'kms:GenerateDataKeyWithoutPlaintext', 'kms:ReEncryptFrom', 'kms:ReEncryptTo'],
};
