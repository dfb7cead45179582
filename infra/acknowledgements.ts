import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { StatefulStack } from './stateful-stack.ts';
import type { StatelessStack } from './stateless-stack.ts';

/**
 * Every cdk-nag finding the service accepts, with the reason, in one place: the infra tests run the
 * AwsSolutions and Serverless packs over both stacks and fail on any finding not listed here.
 */
const reasons = {
  xrayWildcard: {
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
    reason:
      'Only xray:PutTraceSegments and xray:PutTelemetryRecords, which X-Ray does not scope to a resource; every table, queue and bus grant names its resource',
  },
  apiAuthorization: {
    id: 'AwsSolutions::AwsSolutions-APIG4',
    reason:
      "Authorization is the reference API's own: each function looks up the Bearer secret key (or a session or account-link secret) and answers 401 in the documented shape; a gateway authorizer would change those answers",
  },
  synchronousFunction: {
    id: 'Serverless::Serverless-LambdaDLQ',
    reason:
      'Invoked synchronously (API Gateway) or by an SQS event source whose queue has its own dead-letter queue; a Lambda DLQ only catches asynchronous invocations',
  },
  scheduledRunDropped: [
    {
      id: 'Serverless::Serverless-LambdaDLQ',
      reason: 'A scheduled job run that fails is dropped on purpose: the next run, a minute later, does the same work from the table',
    },
    {
      id: 'Serverless::Serverless-LambdaAsyncFailureDestination',
      reason: 'A scheduled job run that fails is dropped on purpose: the next run does the same work; failures raise the job error alarm',
    },
  ],
  scheduleTarget: {
    id: 'Serverless::Serverless-EventBusDLQ',
    reason: 'A schedule event EventBridge cannot hand to Lambda is followed by the next run a minute later; keeping it would only run the job twice',
  },
  eventSourceMapping: {
    id: 'Serverless::Serverless-LambdaEventSourceMappingDestination',
    reason: 'SQS event sources take no on-failure destination: a message that keeps failing goes to the queue’s dead-letter queue through its redrive policy',
  },
  tracingOff: {
    id: 'Serverless::Serverless-LambdaTracing',
    reason: 'The operator turned tracing off with -c tracing=false (docs/operations.md: what X-Ray costs at high request rates)',
  },
  alarmEmail: {
    id: 'Serverless::Serverless-SNSRedrivePolicy',
    reason: 'An alarm email SNS cannot deliver has nowhere better to go: the alarm itself stays in ALARM in CloudWatch, on the dashboard',
  },
  backupRole: {
    id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
    reason: "AWS Backup's own service-role policy, which AWS maintains for the services it backs up; the selection names the one table it may back up",
  },
  codeDeployRole: {
    id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
    reason:
      "CodeDeploy's own policy for Lambda deployments, which AWS keeps in step with what a traffic shift needs: it may update aliases and invoke only functions named CodeDeployHook_*, and read alarms",
  },
  originSecretRotation: {
    id: 'AwsSolutions::AwsSolutions-SMG4',
    reason:
      'CloudFront and the origin authorizer read the origin secret at deploy (a dynamic reference): a scheduled rotation would lock CloudFront out until the next deploy. It is rotated by a deploy instead (docs/operations.md, Rotating the origin secret)',
  },
  edgeAccessLogs: {
    id: 'AwsSolutions::AwsSolutions-CFR3',
    reason:
      "Every request CloudFront forwards is in the API's access log (request id, route, status, latency); WAF's per-rule metrics and sampled requests cover those it blocks. CloudFront's own logs would add ~$4,500 a month at 10,000 requests a second for the same lines",
  },
  edgeDefaultCertificate: {
    id: 'AwsSolutions::AwsSolutions-CFR4',
    reason:
      "Without -c domainName the distribution answers on CloudFront's default certificate, whose TLS policy CloudFront fixes; the official SDKs negotiate TLS 1.2 or later anyway. Production gives a custom domain and certificate, which set TLSv1.2_2021 (docs/operations.md)",
  },
  edgeGeoRestriction: {
    id: 'AwsSolutions::AwsSolutions-CFR1',
    reason: 'The API serves platforms wherever they run; a country rule is an operator decision for the web ACL, not a default',
  },
  deadLetterQueue: {
    id: 'Serverless::Serverless-SQSRedrivePolicy',
    reason: 'This is a dead-letter queue; the DLQ alarm watches it',
  },
};

const acknowledge = (construct: IConstruct, ...rules: { id: string; reason: string }[]) => Validations.of(construct).acknowledge(...rules);

/** Applies the accepted findings to the constructs they are about, and nowhere else. */
export function acknowledgeFindings(stateful: StatefulStack, stateless: StatelessStack): void {
  for (const { deadLetterQueue } of Object.values(stateful.queues)) acknowledge(deadLetterQueue, reasons.deadLetterQueue);
  acknowledge(stateful.backupPlan, reasons.backupRole);
  for (const [name, fn] of Object.entries(stateless.functions)) {
    acknowledge(fn.role, reasons.xrayWildcard);
    if (!stateless.tracing) acknowledge(fn.function, reasons.tracingOff);
    if (stateless.scheduledJobs[name]) {
      acknowledge(fn, ...reasons.scheduledRunDropped);
    } else {
      acknowledge(fn.function, reasons.synchronousFunction);
    }
    if (stateless.queueWorkers[name]) acknowledge(fn, reasons.eventSourceMapping);
  }
  acknowledge(stateless.deploymentRole, reasons.codeDeployRole);
  if (stateless.originSecret) acknowledge(stateless.originSecret, reasons.originSecretRotation);
  if (stateless.distribution) acknowledge(stateless.distribution, reasons.edgeAccessLogs, reasons.edgeGeoRestriction);
  if (stateless.distribution && !stateless.customDomain) acknowledge(stateless.distribution, reasons.edgeDefaultCertificate);
  for (const rule of stateless.scheduleRules) acknowledge(rule, reasons.scheduleTarget);
  if (stateless.monitoring.emailSubscription) acknowledge(stateless.monitoring.emailSubscription, reasons.alarmEmail);
  for (const route of stateless.httpRoutes) acknowledge(route, reasons.apiAuthorization);
}
