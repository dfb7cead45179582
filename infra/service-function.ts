import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Permission } from '#functions/permissions.ts';
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
  eventBus: IEventBus;
  queues: Record<QueueName, ServiceQueue>;
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
  /** @default RetentionDays.ONE_MONTH */
  logRetention?: RetentionDays;
  /**
   * Read by Powertools Logger.
   * @default 'INFO'
   */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
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

/**
 * A Lambda function of this service with the defaults every function shares: Node.js 22 on arm64, an ESM
 * bundle built by the local esbuild (no Docker), its own log group, a role that starts with nothing but
 * that log group, and the environment `shared/config.ts` parses.
 *
 * The AWS SDK is bundled rather than taken from the runtime, so the deployed code runs the SDK version
 * the lockfile pins and the tests ran, not whatever the runtime ships that month.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      // Logs belong to the function: a removed function should not leave an orphaned, billed log group.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Not the default role: it would attach AWSLambdaBasicExecutionRole, which may write to any log group.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(repositoryRoot, props.entry),
      handler: 'handler',
      projectRoot: repositoryRoot,
      depsLockFilePath: join(repositoryRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        ...commonEnvironment(props.resources),
        POWERTOOLS_SERVICE_NAME: props.serviceName ?? 'service-api',
        LOG_LEVEL: props.logLevel ?? 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        // Stack traces need the mappings only; embedded sources would make every asset much larger.
        sourcesContent: false,
        mainFields: ['module', 'main'],
        // Bundled CommonJS dependencies still call require() for Node built-ins, which ESM lacks.
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        bundleAwsSDK: true,
        logLevel: LogLevel.WARNING,
      },
    });

    for (const permission of props.permissions ?? []) {
      grant(this.function, permission, props.resources);
    }
  }
}

/** The variables `shared/config.ts` reads to find the stateful resources. */
function commonEnvironment(resources: ServiceResources): Record<string, string> {
  const environment: Record<string, string> = {
    TABLE_NAME: resources.table.tableName,
    EVENT_BUS_NAME: resources.eventBus.eventBusName,
  };
  for (const [name, definition] of Object.entries(queueDefinitions)) {
    environment[definition.urlVariable] = resources.queues[name as QueueName].queue.queueUrl;
  }
  return environment;
}

function grant(fn: NodejsFunction, permission: Permission, resources: ServiceResources): void {
  if (permission === 'table:read') {
    resources.table.grantReadData(fn);
  } else if (permission === 'table:write') {
    resources.table.grantReadWriteData(fn);
  } else if (permission === 'bus:put') {
    resources.eventBus.grantPutEventsTo(fn);
  } else {
    const queueName = permission.slice('queue:'.length, -':send'.length) as QueueName;
    const queue = resources.queues[queueName];
    if (!queue) {
      throw new Error(`Unknown queue in permission ${permission}`);
    }
    queue.queue.grantSendMessages(fn);
  }
}
