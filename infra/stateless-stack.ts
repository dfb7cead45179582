import { CfnOutput, Duration, NestedStack, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  fallbackRoute as defaultFallbackRoute,
  queueWorkers as defaultQueueWorkers,
  routes as defaultRoutes,
  scheduledJobs as defaultScheduledJobs,
  type QueueWorker,
  type Route,
  type ScheduledJob,
} from '#functions/routes.ts';
import { queues as queueDefinitions, workerTimeoutSeconds } from '#shared/messaging/queues.ts';
import { routeStackGroups } from './api-areas.ts';
import { functionEnvironment, type FunctionSettings } from './function-settings.ts';
import { Monitoring } from './monitoring.ts';
import { operationsSettings, type OperationsSettings, type ResolvedOperationsSettings } from './operations-settings.ts';
import { ServiceFunction, type ServiceResources } from './service-function.ts';

/** A function that answers whatever no route matched. */
export type FallbackRoute = Pick<Route, 'name' | 'handler' | 'permissions'>;

/** The synthetic probe: a real read path of the API through its public URL, every minute; no table access of its own. */
export const apiProbeJob: ScheduledJob = { name: 'probeApi', handler: 'functions/schedules/probe-api.ts', everyMinutes: 1, permissions: [] };

export interface StatelessStackProps extends StackProps, FunctionSettings, OperationsSettings {
  /** Usually the stateful stack, which exposes exactly these properties. */
  resources: ServiceResources;
  /** @default - `routes` from functions/routes.ts */
  routes?: Route[];
  /** @default - `fallbackRoute` from functions/routes.ts */
  fallbackRoute?: FallbackRoute;
  /** @default - `queueWorkers` from functions/routes.ts */
  queueWorkers?: QueueWorker[];
  /** @default - `scheduledJobs` from functions/routes.ts */
  scheduledJobs?: ScheduledJob[];
}

/**
 * Queue workers and scheduled jobs may run longer than API functions, but never longer than a sixth of
 * their queue's visibility timeout, nor than the shortest schedule (one minute), so runs of a job do not
 * overlap.
 */
const workerTimeout = Duration.seconds(workerTimeoutSeconds);

/** What one line of the API's access log says: no header, query string or body, so no key or secret. */
const accessLogFields = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  sourceIp: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  errorMessage: '$context.error.message',
};

/**
 * Everything that can be replaced at will: the HTTP API with one function per route of the route table,
 * the fallback function on `$default`, one function per queue worker and one per scheduled job with the
 * EventBridge rule that runs it. Each function's construct id is its name in the route table.
 *
 * A route's function, integration, route and invoke permission live in a nested stack per API area
 * (`Routes/V1Customers`, `Routes/V2CoreAccounts`…, see infra/api-areas.ts): at 7 resources per route, one
 * template would pass CloudFormation's 500 resources at about 70 routes. The API, the fallback, the
 * workers and the jobs stay here. CDK passes each nested stack the API id as a parameter; the stateful
 * resources reach a nested stack as they reach this one, from the outputs of the stateful stack.
 */
/** Requests per second (and burst) the keyless OpenAPI document is served at, per stage. */
const openApiThrottle = { rate: 5, burst: 10 };

export class StatelessStack extends Stack {
  readonly api: HttpApi;
  /** `$default`, throttled and access-logged. */
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  readonly monitoring: Monitoring;
  /** Every function by its route-table name, whichever stack it lives in. */
  readonly functions: Record<string, ServiceFunction> = {};
  /** The queue workers and the scheduled jobs by name (also in `functions`). */
  readonly queueWorkers: Record<string, ServiceFunction> = {};
  readonly scheduledJobs: Record<string, ServiceFunction> = {};
  /** Every API Gateway route, `$default` included, and every schedule rule. */
  readonly httpRoutes: HttpRoute[] = [];
  readonly scheduleRules: Rule[] = [];
  /** The synthetic probe of the deployed API (`functions/schedules/probe-api.ts`), every minute. */
  readonly probe: ServiceFunction;
  /** The nested stacks of the routes by construct id, such as `V2CoreAccounts`. */
  readonly routeStacks: Record<string, NestedStack> = {};
  /** Variables from the function settings, set on every function. */
  private readonly functionEnvironment: Record<string, string>;
  private readonly operations: ResolvedOperationsSettings;
  /** Whether the functions are traced with X-Ray (`-c tracing`). */
  readonly tracing: boolean;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { resources } = props;
    const routes = props.routes ?? defaultRoutes;
    const fallbackRoute = props.fallbackRoute ?? defaultFallbackRoute;
    const queueWorkers = props.queueWorkers ?? defaultQueueWorkers;
    const scheduledJobs = props.scheduledJobs ?? defaultScheduledJobs;
    this.functionEnvironment = functionEnvironment(this, props);
    this.operations = operationsSettings(this, props);
    this.tracing = this.operations.tracing === 'true';

    this.api = new HttpApi(this, 'HttpApi', {
      apiName: this.stackName,
      description: 'Service API; routes come from functions/routes.ts',
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: this.operations.logRetentionDays,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: this.operations.apiThrottleRate, burstLimit: this.operations.apiThrottleBurst },
      detailedMetricsEnabled: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    // The OpenAPI document needs no key and is large: its own small throttle, so that nobody can spend the
    // stage's on it.
    (this.stage.node.defaultChild as CfnStage).routeSettings = {
      'GET /openapi.json': { ThrottlingRateLimit: openApiThrottle.rate, ThrottlingBurstLimit: openApiThrottle.burst },
    };

    const routeStacksScope = new Construct(this, 'Routes');
    for (const group of routeStackGroups(routes)) {
      const routeStack = new NestedStack(routeStacksScope, group.id, {
        description: `Service API: the functions and routes under ${group.area}`,
      });
      this.routeStacks[group.id] = routeStack;
      for (const route of group.routes) {
        this.addRoute(routeStack, route, HttpRouteKey.with(route.path, HttpMethod[route.method]), resources);
      }
    }
    this.addRoute(this, fallbackRoute, HttpRouteKey.DEFAULT, resources);
    // The stage's route settings name the document's route, which must exist first.
    const documentGroup = routeStackGroups(routes).find((group) => group.routes.some((route) => route.path === '/openapi.json'));
    if (documentGroup) this.stage.node.addDependency(this.routeStacks[documentGroup.id]!);

    for (const worker of queueWorkers) {
      const visibilityTimeoutSeconds = queueDefinitions[worker.queue].visibilityTimeoutSeconds;
      if (6 * workerTimeout.toSeconds() > visibilityTimeoutSeconds) {
        throw new Error(
          `Worker ${worker.name} times out after ${workerTimeout.toSeconds()} s, more than a sixth of the ${visibilityTimeoutSeconds} s visibility timeout of queue ${worker.queue}`,
        );
      }
      const fn = this.addFunction(this, worker.name, worker.handler, worker.permissions, resources, workerTimeout);
      fn.function.addEventSource(
        new SqsEventSource(resources.queues[worker.queue].queue, {
          batchSize: worker.batchSize ?? 10,
          ...(worker.maxBatchingWindowSeconds ? { maxBatchingWindow: Duration.seconds(worker.maxBatchingWindowSeconds) } : {}),
          maxConcurrency: worker.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      this.queueWorkers[worker.name] = fn;
    }

    for (const job of scheduledJobs) {
      this.scheduledJobs[job.name] = this.addScheduledJob(job, resources);
    }
    // The synthetic probe runs on AWS only (the local stack has no public URL to probe).
    this.probe = this.addScheduledJob(apiProbeJob, resources);
    this.probe.function.addEnvironment('PROBE_URL', this.api.apiEndpoint);
    this.scheduledJobs[apiProbeJob.name] = this.probe;

    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: this.stage,
      queues: resources.queues,
      queueWorkers: this.queueWorkers,
      scheduledJobs: this.scheduledJobs,
      probe: this.probe,
      routeFunctions: Object.fromEntries(routes.map((route) => [route.name, this.functions[route.name]!])),
      routeAreas: routeStackGroups(routes).map(({ id, area, routes: areaRoutes }) => ({
        id,
        area,
        functions: areaRoutes.map((route) => this.functions[route.name]!),
      })),
      table: resources.table,
      ...(resources.backupVaultName ? { backupVaultName: resources.backupVaultName } : {}),
      ...(this.operations.alarmEmail ? { alarmEmail: this.operations.alarmEmail } : {}),
      ...(this.operations.alarmTopicArn ? { alarmTopicArn: this.operations.alarmTopicArn } : {}),
      notifyNobody: this.operations.alarmDestination === 'none',
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint, description: 'Base URL of the API' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn, description: 'Subscribe a pager or an email to this topic' });
    new CfnOutput(this, 'TableName', { value: resources.table.tableName, description: 'The single DynamoDB table' });
  }

  /**
   * EventBridge invokes the job asynchronously. A run that fails or cannot start within its period is
   * dropped rather than retried: the next run does the same work, and a retry would overlap with it.
   */
  private addScheduledJob(job: ScheduledJob, resources: ServiceResources): ServiceFunction {
    if (!Number.isInteger(job.everyMinutes) || job.everyMinutes < 1) {
      throw new Error(`Scheduled job ${job.name} must run every whole number of minutes, got ${job.everyMinutes}`);
    }
    const fn = this.addFunction(this, job.name, job.handler, job.permissions, resources, workerTimeout);
    // Lambda keeps an async event for at most 6 hours.
    const maxEventAge = Duration.minutes(Math.min(job.everyMinutes, 6 * 60));
    fn.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge });
    const rule = new Rule(this, `${job.name}Schedule`, {
      description: `Runs ${job.name} every ${job.everyMinutes} min`,
      schedule: Schedule.rate(Duration.minutes(job.everyMinutes)),
      // EventBridge retries only when it cannot hand the event to Lambda (throttling, service errors).
      targets: [new LambdaFunction(fn.function, { retryAttempts: 2, maxEventAge })],
    });
    this.scheduleRules.push(rule);
    return fn;
  }

  /** The function, its route and integration, and the permission to invoke it, all in `scope`'s stack. */
  private addRoute(scope: Construct, route: FallbackRoute, routeKey: HttpRouteKey, resources: ServiceResources): void {
    const fn = this.addFunction(scope, route.name, route.handler, route.permissions, resources);
    const httpRoute = new HttpRoute(scope, `${route.name}Route`, {
      httpApi: this.api,
      routeKey,
      integration: new HttpLambdaIntegration(`${route.name}Integration`, fn.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
    });
    this.httpRoutes.push(httpRoute);
  }

  private addFunction(
    scope: Construct,
    name: string,
    entry: string,
    permissions: Route['permissions'],
    resources: ServiceResources,
    timeout?: Duration,
  ): ServiceFunction {
    if (this.functions[name]) {
      throw new Error(`Two functions are named ${name}; names in functions/routes.ts must be unique`);
    }
    const fn = new ServiceFunction(scope, name, {
      entry,
      permissions,
      resources,
      timeout,
      environment: this.functionEnvironment,
      logRetention: this.operations.logRetentionDays,
      logLevel: this.operations.logLevel,
      tracing: this.tracing,
    });
    this.functions[name] = fn;
    return fn;
  }
}
