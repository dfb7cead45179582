import { CfnOutput, Duration, NestedStack, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  type CfnStage,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { type ILambdaDeploymentConfig, LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties, CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { originVerifyHeader } from '#functions/authorizers/origin-verify.ts';
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
import { edgeSettings, type EdgeSettings } from './edge-settings.ts';
import { functionEnvironment, type FunctionSettings } from './function-settings.ts';
import { Monitoring } from './monitoring.ts';
import { type DeploymentStrategy, operationsSettings, type OperationsSettings, type ResolvedOperationsSettings } from './operations-settings.ts';
import { routeThrottleClass, routeThrottles } from './route-throttles.ts';
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
  /** The WAF web ACL of the edge stack (us-east-1), when `-c edge=cloudfront`. */
  webAclArn?: string;
}

/** The origin lock's authorizer: also an entry of the stack, with its own function. */
export const originAuthorizerJob = { name: 'verifyOrigin', handler: 'functions/authorizers/origin-verify.ts' } as const;

/** CodeDeploy's configuration for each `deploymentStrategy` (infra/operations-settings.ts). */
const deploymentConfigs: Record<DeploymentStrategy, ILambdaDeploymentConfig> = {
  canary10Percent10Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES,
  canary10Percent5Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  linear10PercentEvery1Minute: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
  linear10PercentEvery3Minutes: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_3MINUTES,
  allAtOnce: LambdaDeploymentConfig.ALL_AT_ONCE,
};

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
  /** Each function's CodeDeploy deployment group by function name: it shifts the `live` alias to a new version. */
  readonly deploymentGroups: Record<string, LambdaDeploymentGroup> = {};
  /** The CloudFront distribution in front of the API (`-c edge=cloudfront`). */
  readonly distribution?: Distribution;
  /** The secret CloudFront sends as `x-origin-verify`, which the API's authorizer requires. */
  readonly originSecret?: Secret;
  /** The URL clients use: the custom domain, else the distribution, else the API's own. */
  readonly publicUrl: string;
  /** The custom domain of `-c domainName`, on the distribution or on API Gateway. */
  readonly customDomain?: string;
  /** Variables from the function settings, set on every function. */
  private readonly functionEnvironment: Record<string, string>;
  private readonly operations: ResolvedOperationsSettings;
  private readonly edge: EdgeSettings;
  private readonly deployment: { application: LambdaApplication; config: ILambdaDeploymentConfig };
  /** CodeDeploy's service role, shared by every deployment group of the stack. */
  readonly deploymentRole: Role;
  private readonly authorizer?: HttpLambdaAuthorizer;
  private readonly originSecretSource?: ISecret;
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
    this.edge = edgeSettings(this, this.region);
    this.tracing = this.operations.tracing === 'true';
    if (this.edge.edge && !props.webAclArn) throw new Error('-c edge=cloudfront needs the web ACL of the edge stack (infra/service.ts builds it)');

    // One CodeDeploy application and service role for every function of the stack (a role per deployment
    // group would add 112 roles for the same managed policy).
    this.deploymentRole = new Role(this, 'DeploymentRole', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited')],
    });
    this.deployment = { application: new LambdaApplication(this, 'Deployments'), config: deploymentConfigs[this.operations.deploymentStrategy] };

    // The API's logical id (`HttpApiF5A9A8A7`) and its replacement-forcing properties never change: a
    // replaced API gets a new id, hence a new execute-api URL (test/infra/safe-deploys.test.ts).
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

    this.customDomain = this.edge.domainName;
    const certificate = this.edge.certificateArn ? Certificate.fromCertificateArn(this, 'Certificate', this.edge.certificateArn) : undefined;
    if (this.edge.edge) {
      if (this.edge.originSecretArn) {
        this.originSecretSource = Secret.fromSecretCompleteArn(this, 'GivenOriginSecret', this.edge.originSecretArn);
      } else {
        this.originSecret = new Secret(this, 'OriginSecret', {
          description: `The ${originVerifyHeader} header CloudFront sends to the API; rotate it with docs/operations.md`,
          generateSecretString: { passwordLength: 48, excludePunctuation: true },
        });
        this.originSecretSource = this.originSecret;
      }
      // A CloudFormation dynamic reference, resolved at deploy: the value is never in the template.
      const originSecretValue = this.originSecretSource.secretValue.unsafeUnwrap();
      this.distribution = new Distribution(this, 'Edge', {
        comment: `${this.stackName}: the API behind WAF`,
        webAclId: props.webAclArn,
        defaultBehavior: {
          origin: new HttpOrigin(`${this.api.apiId}.execute-api.${this.region}.${this.urlSuffix}`, {
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
            originSslProtocols: [OriginSslPolicy.TLS_V1_2],
            customHeaders: { [originVerifyHeader]: originSecretValue },
            readTimeout: Duration.seconds(30),
          }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Nothing is cached; every header but Host (API Gateway routes on its own), the query string and the
          // body reach the API: Authorization, Idempotency-Key, the SDK's version and user-agent headers.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          compress: false,
        },
        httpVersion: HttpVersion.HTTP2_AND_3,
        priceClass: PriceClass.PRICE_CLASS_ALL,
        // Viewers on the custom domain get TLS 1.2 at least; the default *.cloudfront.net certificate's policy
        // is CloudFront's own (infra/acknowledgements.ts).
        ...(this.edge.domainName && certificate
          ? { domainNames: [this.edge.domainName], certificate, minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021 }
          : {}),
      });
    } else if (this.edge.domainName && certificate) {
      const domain = new DomainName(this, 'CustomDomain', { domainName: this.edge.domainName, certificate });
      new ApiMapping(this, 'CustomDomainMapping', { api: this.api, domainName: domain, stage: this.stage });
      this.aliasRecords(RecordTarget.fromAlias(new ApiGatewayv2DomainProperties(domain.regionalDomainName, domain.regionalHostedZoneId)));
    }
    if (this.distribution) this.aliasRecords(RecordTarget.fromAlias(new CloudFrontTarget(this.distribution)));

    const defaultPublicUrl = this.edge.domainName
      ? `https://${this.edge.domainName}`
      : this.distribution
        ? `https://${this.distribution.distributionDomainName}`
        : undefined;
    const publicBaseUrl = this.edge.publicBaseUrl ?? defaultPublicUrl;
    if (publicBaseUrl) this.functionEnvironment.PUBLIC_BASE_URL = publicBaseUrl;
    // Behind CloudFront, API Gateway's source address is a CloudFront server's; the authorizer lets only
    // CloudFront in, so the viewer address it writes is the client's (shared/http/client-address.ts).
    if (this.edge.edge) this.functionEnvironment.CLIENT_ADDRESS_HEADER = 'cloudfront-viewer-address';
    this.publicUrl = publicBaseUrl ?? this.api.apiEndpoint;

    if (this.edge.edge) {
      const verifier = this.addFunction(this, originAuthorizerJob.name, originAuthorizerJob.handler, [], resources);
      verifier.function.addEnvironment('ORIGIN_VERIFY_SECRET', this.originSecretSource!.secretValue.unsafeUnwrap());
      this.authorizer = new HttpLambdaAuthorizer('OriginAuthorizer', verifier.alias, {
        authorizerName: 'origin-verify',
        identitySource: [`$request.header.${originVerifyHeader}`],
        responseTypes: [HttpLambdaResponseType.SIMPLE],
        resultsCacheTtl: Duration.minutes(5),
      });
    }

    const routeStacksScope = new Construct(this, 'Routes');
    const groups = routeStackGroups(routes);
    const detachedEverywhere = this.edge.detachRoutes.includes('all');
    for (const unknown of this.edge.detachRoutes.filter((group) => group !== 'all' && !groups.some(({ id }) => id === group))) {
      throw new Error(`detachRoutes names ${unknown}, which is no route group (infra/api-areas.ts)`);
    }
    const attachedRoutes: Route[] = [];
    for (const group of groups) {
      const routeStack = new NestedStack(routeStacksScope, group.id, {
        description: `Service API: the functions and routes under ${group.area}`,
      });
      this.routeStacks[group.id] = routeStack;
      const detached = detachedEverywhere || this.edge.detachRoutes.includes(group.id);
      for (const route of group.routes) {
        this.addRoute(routeStack, route, detached ? undefined : HttpRouteKey.with(route.path, HttpMethod[route.method]), resources);
        if (!detached) attachedRoutes.push(route);
      }
      // The stage's route settings name the group's routes, which must exist first.
      this.stage.node.addDependency(routeStack);
    }
    this.addRoute(this, fallbackRoute, HttpRouteKey.DEFAULT, resources);

    // Per-route throttles (docs/capacity.md, *Per-route throttles*), each class at or below the stage's.
    const throttles = routeThrottles(this, { rate: this.operations.apiThrottleRate, burst: this.operations.apiThrottleBurst });
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      attachedRoutes.map((route) => {
        const { rate, burst } = throttles[routeThrottleClass(route)];
        return [`${route.method} ${route.path}`, { ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst }];
      }),
    );

    for (const worker of queueWorkers) {
      const visibilityTimeoutSeconds = queueDefinitions[worker.queue].visibilityTimeoutSeconds;
      if (6 * workerTimeout.toSeconds() > visibilityTimeoutSeconds) {
        throw new Error(
          `Worker ${worker.name} times out after ${workerTimeout.toSeconds()} s, more than a sixth of the ${visibilityTimeoutSeconds} s visibility timeout of queue ${worker.queue}`,
        );
      }
      const fn = this.addFunction(this, worker.name, worker.handler, worker.permissions, resources, workerTimeout);
      fn.alias.addEventSource(
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
    // The synthetic probe runs on AWS only (the local stack has no public URL to probe), through the URL
    // clients use: with the edge on, through CloudFront and WAF.
    this.probe = this.addScheduledJob(apiProbeJob, resources);
    this.probe.function.addEnvironment('PROBE_URL', this.publicUrl);
    this.scheduledJobs[apiProbeJob.name] = this.probe;

    const areas = groups.map(({ id, area, routes: areaRoutes }) => ({
      id,
      area,
      scope: this.routeStacks[id]!,
      functions: areaRoutes.map((route) => this.functions[route.name]!),
    }));
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: this.stage,
      queues: resources.queues,
      queueWorkers: this.queueWorkers,
      scheduledJobs: this.scheduledJobs,
      probe: this.probe,
      routeFunctions: Object.fromEntries(routes.map((route) => [route.name, this.functions[route.name]!])),
      routeAreas: areas,
      table: resources.table,
      ...(resources.backupVaultName ? { backupVaultName: resources.backupVaultName } : {}),
      ...(this.operations.alarmEmail ? { alarmEmail: this.operations.alarmEmail } : {}),
      ...(this.operations.alarmTopicArn ? { alarmTopicArn: this.operations.alarmTopicArn } : {}),
      notifyNobody: this.operations.alarmDestination === 'none',
    });

    // What rolls each deployment back: the API as clients see it (5xx rate, the probe), plus the function's
    // own errors: its area's route-error alarm, or the worker's or job's error alarm.
    const apiAlarms: IAlarm[] = [this.monitoring.apiServerErrors, this.monitoring.apiProbe];
    for (const { functions } of areas) {
      for (const fn of functions) this.rollBackOn(fn.node.id, [...apiAlarms, this.monitoring.routeErrorAlarmOf(fn)]);
    }
    for (const name of [...Object.keys(this.queueWorkers), ...Object.keys(this.scheduledJobs)]) {
      this.rollBackOn(name, [this.monitoring.functionErrorAlarms[name]!]);
    }
    this.rollBackOn(fallbackRoute.name, apiAlarms);
    if (this.authorizer) this.rollBackOn(originAuthorizerJob.name, apiAlarms);

    new CfnOutput(this, 'ApiUrl', { value: this.publicUrl, description: 'Base URL of the API, as clients use it' });
    new CfnOutput(this, 'ExecuteApiUrl', { value: this.api.apiEndpoint, description: "API Gateway's own URL (behind CloudFront, only CloudFront may use it)" });
    if (this.distribution) {
      new CfnOutput(this, 'DistributionDomainName', { value: this.distribution.distributionDomainName, description: 'Point the custom domain here' });
    }
    new CfnOutput(this, 'DeploymentApplication', {
      value: this.deployment.application.applicationName,
      description: 'The CodeDeploy application of every function: aws deploy list-deployments --application-name <this>',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn, description: 'Subscribe a pager or an email to this topic' });
    new CfnOutput(this, 'TableName', { value: resources.table.tableName, description: 'The single DynamoDB table' });
  }

  /** A and AAAA alias records of the custom domain in `-c hostedZoneId`, when given. */
  private aliasRecords(target: RecordTarget): void {
    const { hostedZoneId, domainName } = this.edge;
    if (!hostedZoneId || !domainName) return;
    const zone = HostedZone.fromHostedZoneAttributes(this, 'HostedZone', { hostedZoneId, zoneName: domainName });
    // A trailing dot: the record is the domain itself, whatever the zone's own name.
    new ARecord(this, 'AliasRecord', { zone, recordName: `${domainName}.`, target });
    new AaaaRecord(this, 'AliasRecordIpv6', { zone, recordName: `${domainName}.`, target });
  }

  private rollBackOn(name: string, alarms: IAlarm[]): void {
    const group = this.deploymentGroups[name]!;
    for (const alarm of alarms) group.addAlarm(alarm);
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
    fn.alias.configureAsyncInvoke({ retryAttempts: 0, maxEventAge });
    const rule = new Rule(this, `${job.name}Schedule`, {
      description: `Runs ${job.name} every ${job.everyMinutes} min`,
      schedule: Schedule.rate(Duration.minutes(job.everyMinutes)),
      // EventBridge retries only when it cannot hand the event to Lambda (throttling, service errors).
      targets: [new LambdaFunction(fn.alias, { retryAttempts: 2, maxEventAge })],
    });
    this.scheduleRules.push(rule);
    return fn;
  }

  /**
   * The function, its route and integration to the `live` alias, and the permission to invoke it, all in
   * `scope`'s stack. Without a route key (`-c detachRoutes`), the function alone: the first step of moving a
   * route between stacks, since API Gateway refuses a second route with the same key.
   */
  private addRoute(scope: Construct, route: FallbackRoute, routeKey: HttpRouteKey | undefined, resources: ServiceResources): void {
    const fn = this.addFunction(scope, route.name, route.handler, route.permissions, resources);
    if (!routeKey) return;
    const httpRoute = new HttpRoute(scope, `${route.name}Route`, {
      httpApi: this.api,
      routeKey,
      integration: new HttpLambdaIntegration(`${route.name}Integration`, fn.alias, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
      ...(this.authorizer ? { authorizer: this.authorizer } : {}),
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
    this.deploymentGroups[name] = new LambdaDeploymentGroup(fn, 'Deployment', {
      alias: fn.alias,
      application: this.deployment.application,
      role: this.deploymentRole,
      deploymentConfig: this.deployment.config,
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      ignoreAlarmConfiguration: this.operations.deploymentAlarms === 'ignore',
    });
    return fn;
  }
}
