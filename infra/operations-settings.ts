import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import * as z from 'zod';

/**
 * How the deployed service is run and watched: each is a stack prop and, when the prop is not given, the
 * context value of the same name (`-c alarmEmail=oncall@example.com`, or the `context` of cdk.json).
 * Checked at synth: a malformed value stops `cdk synth` naming the key.
 */
export interface OperationsSettings {
  /**
   * Where alarms are sent: an email subscription to the alarm topic (confirm it from the first email).
   * @default - the context value `alarmEmail`, else the topic has no subscriber (subscribe a pager to it)
   */
  alarmEmail?: string;
  /**
   * An existing SNS topic (a pager's, an on-call tool's) every alarm also notifies.
   * @default - the context value `alarmTopicArn`
   */
  alarmTopicArn?: string;
  /**
   * `none`: deploy with nobody notified, on purpose (a sandbox). Without it, a deploy needs `alarmEmail` or
   * `alarmTopicArn`: alarms that page nobody are an outage nobody hears about.
   * @default - the context value `alarmDestination`
   */
  alarmDestination?: 'none';
  /**
   * Steady requests a second the API stage accepts across all clients, before API Gateway answers 429.
   * @default - the context value `apiThrottleRate`, else 10,000 (the account's default quota per region)
   */
  apiThrottleRate?: number;
  /**
   * Requests the stage accepts in a burst above the rate.
   * @default - the context value `apiThrottleBurst`, else 5,000 (the same quota's burst)
   */
  apiThrottleBurst?: number;
  /**
   * Days every log group (functions and API access logs) keeps its logs; one of CloudWatch's retention
   * periods. Log groups are retained when the stack is deleted.
   * @default - the context value `logRetentionDays`, else 400 (13 months, a yearly audit's look-back)
   */
  logRetentionDays?: number;
  /**
   * The level of the functions' application logs (Lambda's JSON log filter and `POWERTOOLS_LOG_LEVEL`).
   * @default - the context value `logLevel`, else 'INFO'
   */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Whether functions are traced with X-Ray ('true' or 'false'). Lambda samples the first request each
   * second and 5 % of the rest (its fixed rate: HTTP APIs pass no sampling decision, and functions take
   * no sampling rule), about 500 traces a second at 10,000 requests a second. The X-Ray SDK also costs
   * every function some CPU on every `await` (about half a microsecond), traced or not; a deployment that
   * does not read traces may turn it off.
   * @default - the context value `tracing`, else 'true'
   */
  tracing?: 'true' | 'false';
  /**
   * How CodeDeploy shifts each changed function's `live` alias to its new version: `canary10Percent10Minutes`
   * (10 % of invocations for ten minutes, then all), `canary10Percent5Minutes`, `linear10PercentEvery1Minute`,
   * `linear10PercentEvery3Minutes`, or `allAtOnce` (no canary: for a dev stage, said so explicitly). Ten
   * minutes by default because the rollback alarms have five-minute periods: a five-minute canary can end
   * before its first complete period is judged.
   * @default - the context value `deploymentStrategy`, else 'canary10Percent10Minutes'
   */
  deploymentStrategy?: DeploymentStrategy;
  /**
   * `rollback`: a deployment stops and shifts the alias back when a rollback alarm fires. `ignore`: deploy
   * through alarms already firing (a fix forward during an incident); failed deployments still roll back.
   * @default - the context value `deploymentAlarms`, else 'rollback'
   */
  deploymentAlarms?: 'rollback' | 'ignore';
}

export const deploymentStrategies = [
  'canary10Percent10Minutes',
  'canary10Percent5Minutes',
  'linear10PercentEvery1Minute',
  'linear10PercentEvery3Minutes',
  'allAtOnce',
] as const;
export type DeploymentStrategy = (typeof deploymentStrategies)[number];

const retentionPeriods = Object.values(RetentionDays).filter((days): days is number => typeof days === 'number' && days > 0);

const schema = z.object({
  alarmEmail: z.email().optional(),
  alarmTopicArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/, 'an SNS topic ARN')
    .optional(),
  alarmDestination: z.literal('none').optional(),
  apiThrottleRate: z.coerce.number().int().positive().default(10_000),
  apiThrottleBurst: z.coerce.number().int().positive().max(5_000).default(5_000),
  logRetentionDays: z.coerce
    .number()
    .refine((days) => retentionPeriods.includes(days), `one of ${retentionPeriods.join(', ')}`)
    .default(400),
  logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  tracing: z.enum(['true', 'false']).default('true'),
  deploymentStrategy: z.enum(deploymentStrategies).default('canary10Percent10Minutes'),
  deploymentAlarms: z.enum(['rollback', 'ignore']).default('rollback'),
});

export type ResolvedOperationsSettings = z.output<typeof schema>;

/** The settings of `props`, else of the context of `scope`, with their defaults; throws on a malformed one. */
export function operationsSettings(scope: Construct, props: OperationsSettings): ResolvedOperationsSettings {
  const given = Object.fromEntries(
    Object.keys(schema.shape).map((key) => {
      const value: unknown = props[key as keyof OperationsSettings] ?? scope.node.tryGetContext(key);
      // `-c key=` on the command line gives an empty string: treat it as not set.
      return [key, value === '' ? undefined : value];
    }),
  );
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0]);
    throw new Error(`${key} is not valid (${issue.message}), got ${JSON.stringify(given[key])}`);
  }
  const { alarmEmail, alarmTopicArn, alarmDestination } = parsed.data;
  if (!alarmEmail && !alarmTopicArn && alarmDestination !== 'none') {
    throw new Error(
      'Alarms would notify nobody: deploy with -c alarmEmail=<address> or -c alarmTopicArn=<an SNS topic ARN>, or with -c alarmDestination=none to deploy without anyone notified on purpose (not for production)',
    );
  }
  return parsed.data;
}
