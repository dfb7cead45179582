import { App } from 'aws-cdk-lib';
import { buildService } from './service.ts';

/**
 * Deploys `ServiceStateful` and `ServiceStateless`; `-c stage=dev` deploys a separate copy named
 * `ServiceStateful-dev` and `ServiceStateless-dev`, to the account and region of `-c account=… -c region=…`,
 * of `stages.dev` in cdk.json's context, or of the current profile (infra/service.ts).
 *
 * Optional context, checked at synth (docs/operations.md lists each with its default):
 * - functions (infra/function-settings.ts): `cloudtwoEventGridEndpoint`, `deliveryRetryScheduleTest`,
 *   `deliveryRetryScheduleLive`, `webhookAllowPrivateTargets`, `rateLimitPerKeyLive`, `rateLimitPerKeyTest`,
 *   `rateLimitMeterEventsLive`, `rateLimitMeterEventsTest`, `rateLimitMeterEventStream`, `rateLimitSearchLive`,
 *   `rateLimitSearchTest`, `rateLimitAuthFailures`
 * - operations (infra/operations-settings.ts): `alarmEmail`, `alarmTopicArn`, `alarmDestination`, `apiThrottleRate`,
 *   `apiThrottleBurst`, `logRetentionDays`, `logLevel`, `tracing`, `deploymentStrategy`, `deploymentAlarms`
 * - per-route throttles (infra/route-throttles.ts): `routeThrottleMeterEvents`, `routeThrottleMeterEventStream`,
 *   `routeThrottleWrites`, `routeThrottleReads`, `routeThrottleHostedPages`, `routeThrottleDocument`
 * - the edge (infra/edge-settings.ts): `edge`, `wafRateLimit`, `originSecretArn`, `domainName`, `certificateArn`,
 *   `hostedZoneId`, `publicBaseUrl`, `detachRoutes`; `-c edge=cloudfront` adds `ServiceEdge[-<stage>]` in us-east-1
 * - the table (infra/stateful-stack.ts): `tableWarmWriteUnits`, `tableWarmReadUnits`, `indexWarmWriteUnits`
 */
buildService(new App());
