import { Annotations, Duration } from 'aws-cdk-lib';
import type { IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import { type Subscription, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { deliveryOutcomeMetrics } from '#shared/delivery/delivery-service.ts';
import type { QueueName } from '#shared/messaging/queues.ts';
import { probeSuccessMetricName } from '#shared/core/api-probe.ts';
import { tableSchema } from '#shared/data/table-schema.ts';
import { rateLimitedMetricName } from '#shared/http/rate-limit.ts';
import { metricsNamespace, type ServiceFunction, type ServiceQueue } from './service-function.ts';

export interface MonitoringProps {
  /** The API's stage, whose request, error and latency metrics the alarms watch. */
  stage: IHttpStage;
  queues: Record<QueueName, ServiceQueue>;
  /** Queue workers by name: errors and throttles alarm. */
  queueWorkers: Record<string, ServiceFunction>;
  /** Scheduled jobs by name: errors and throttles alarm; the sweepers' log groups feed the parked-work metric. */
  scheduledJobs: Record<string, ServiceFunction>;
  /** Route functions by name, graphed by invocations. */
  routeFunctions: Record<string, ServiceFunction>;
  /** The synthetic probe, whose ProbeSuccess metric alarms on a failure and on silence. */
  probe: ServiceFunction;
  /**
   * Route functions by API area (infra/api-areas.ts): their errors alarm per area, in `scope` (the area's
   * nested stack), where the area's deployment groups can roll back on them without a reference cycle.
   */
  routeAreas: Array<{ id: string; area: string; scope: Construct; functions: ServiceFunction[] }>;
  /** The table, whose throttles and system errors (and each index's throttles) alarm. */
  table: ITable;
  /** The backup vault, whose failed backup and copy jobs alarm. */
  backupVaultName?: string;
  /** Subscribed to the alarm topic by email when given. */
  alarmEmail?: string;
  /** An existing topic (a pager's) that every alarm also notifies. */
  alarmTopicArn?: string;
  /** Deployed with nobody notified, by explicit choice (`alarmDestination=none`): said loudly at synth. */
  notifyNobody?: boolean;
}

/** The thresholds of the alarm baseline, in one place (docs/operations.md explains each). */
export const alarmThresholds = {
  /** Percent of API requests answered 5xx over five minutes (at least 20 requests). */
  apiServerErrorPercent: 1,
  /** Milliseconds of p99 latency, sustained for three five-minute periods. */
  apiLatencyP99Millis: 2_000,
  /** Seconds the oldest message of a queue may wait; deliveries may be delayed up to 900 s on purpose. */
  oldestMessageSeconds: { deliveries: 1_800, 'meter-events': 300, billing: 300 } satisfies Record<QueueName, number>,
  /** Percent of the API's requests the functions answered 429 (rate limits) over five minutes (at least 100 requests). */
  rateLimitedPercent: 5,
} as const;

/** The DynamoDB operations the functions call, whose throttles and system errors alarm (an alarm's math takes at most 10 metrics). */
const tableOperations = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.BATCH_WRITE_ITEM,
];

/**
 * A sum in metric math where each term counts as 0 when it has no data: Lambda publishes `Errors` only for
 * a function that ran, DynamoDB its throttles and system errors only when they happen, and a plain `a + b`
 * has no value when either is missing, which an alarm would read as OK.
 */
const filledSum = (ids: string[]) => ids.map((id) => `FILL(${id}, 0)`).join(' + ');

/** CloudWatch's most metrics in one alarm's math expression. */
const maxAlarmMetrics = 10;

/** The metric the sweepers' `parked: true` log lines count into. */
export const parkedWorkMetricName = 'ParkedWork';

/** The metric the queue workers' `refusedMessage: true` log lines (a message the service did not seal) count into. */
export const refusedMessagesMetricName = 'RefusedQueueMessages';

/**
 * The alarm baseline and the dashboard: every alarm notifies one SNS topic (encrypted with its own key,
 * which CloudWatch may use; TLS only), which an operator subscribes a pager or an email to. Alarms fire on
 * dead letters, a backlog, worker and job errors or throttles, parked poison work, refused queue messages, and the API's 5xx rate
 * and p99 latency; each also notifies when it returns to OK.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly emailSubscription?: Subscription;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  /** The API's 5xx rate and the synthetic probe: what every API function's deployment rolls back on. */
  readonly apiServerErrors: Alarm;
  readonly apiProbe: Alarm;
  /** Each queue worker's and scheduled job's error alarm, by name. */
  readonly functionErrorAlarms: Record<string, Alarm> = {};
  /** Each route function's area error alarm, by function. */
  private readonly routeErrorAlarms = new Map<ServiceFunction, Alarm>();

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);

    const topicKey = new Key(this, 'AlarmTopicKey', { description: 'Encrypts the alarm topic', enableKeyRotation: true });
    topicKey.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'AlarmTopic', { displayName: 'Service API alarms', masterKey: topicKey, enforceSSL: true });
    if (props.alarmEmail) this.emailSubscription = this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const actions = [new SnsAction(this.topic), ...(props.alarmTopicArn ? [new SnsAction(Topic.fromTopicArn(this, 'PagerTopic', props.alarmTopicArn))] : [])];
    if (props.notifyNobody) {
      Annotations.of(this).addWarningV2(
        'service:alarmsNotifyNobody',
        'alarmDestination=none: every alarm notifies a topic nobody is subscribed to. Subscribe a pager to the AlarmTopicArn output, or deploy with -c alarmEmail=… or -c alarmTopicArn=…',
      );
    }
    /** An alarm on `metric` at or above `threshold`; `silence: 'breaching'` where no data means the thing stopped. */
    const alarm = (
      alarmId: string,
      metric: IMetric,
      threshold: number,
      description: string,
      evaluationPeriods = 1,
      {
        below = false,
        silence = 'ok',
        datapointsToAlarm,
        scope = this,
      }: { below?: boolean; silence?: 'ok' | 'breaching'; datapointsToAlarm?: number; scope?: Construct } = {},
    ) => {
      const created = new Alarm(scope, alarmId, {
        metric,
        threshold,
        evaluationPeriods,
        ...(datapointsToAlarm ? { datapointsToAlarm } : {}),
        comparisonOperator: below ? ComparisonOperator.LESS_THAN_THRESHOLD : ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: silence === 'breaching' ? TreatMissingData.BREACHING : TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      for (const action of actions) {
        created.addAlarmAction(action);
        created.addOkAction(action);
      }
      this.alarms.push(created);
      return created;
    };

    // The API: 5xx rate and p99 latency.
    const fiveMinutes = Duration.minutes(5);
    const requests = props.stage.metricCount({ period: fiveMinutes, statistic: 'Sum' });
    const serverErrors = props.stage.metricServerError({ period: fiveMinutes, statistic: 'Sum' });
    const serverErrorPercent = new MathExpression({
      expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      period: fiveMinutes,
      label: '5xx %',
    });
    this.apiServerErrors = alarm(
      'ApiServerErrors',
      serverErrorPercent,
      alarmThresholds.apiServerErrorPercent,
      `More than ${alarmThresholds.apiServerErrorPercent}% of API requests answered 5xx over five minutes`,
    );
    const latencyP99 = props.stage.metricLatency({ period: fiveMinutes, statistic: 'p99' });
    alarm(
      'ApiLatencyP99',
      latencyP99,
      alarmThresholds.apiLatencyP99Millis,
      `API p99 latency above ${alarmThresholds.apiLatencyP99Millis} ms for 15 minutes`,
      3,
    );

    // The queues: anything dead-lettered, and a backlog that does not drain.
    for (const [name, { queue, deadLetterQueue }] of Object.entries(props.queues) as [QueueName, ServiceQueue][]) {
      const id = pascal(name);
      alarm(
        `${id}DeadLetters`,
        deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        1,
        `A message of the ${name} queue failed every receive and waits in its dead-letter queue; the sweeper re-queues its work, see docs/operations.md`,
      );
      const oldest = alarmThresholds.oldestMessageSeconds[name];
      alarm(
        `${id}OldestMessage`,
        queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: 'Maximum' }),
        oldest,
        `The oldest message of the ${name} queue is older than ${oldest} s: the worker is not keeping up or keeps failing`,
      );
    }

    // Queue workers and scheduled jobs: any error or throttle.
    for (const [name, fn] of Object.entries({ ...props.queueWorkers, ...props.scheduledJobs })) {
      const id = pascal(name);
      this.functionErrorAlarms[name] = alarm(
        `${id}Errors`,
        fn.function.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        1,
        `${name} failed (its log group has the error)`,
      );
      alarm(
        `${id}Throttles`,
        fn.function.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }),
        1,
        `${name} was throttled: the account's concurrency is exhausted`,
      );
    }

    // Scheduled jobs that stop running: no invocation in ten minutes, and no data at all, both page (a rule
    // disabled or deleted, the account's concurrency gone). The sweepers are what recovers lost work.
    for (const [name, fn] of Object.entries(props.scheduledJobs)) {
      alarm(
        `${pascal(name)}NotRunning`,
        fn.function.metricInvocations({ period: fiveMinutes, statistic: 'Sum' }),
        1,
        `${name} has not run for ten minutes: its schedule rule or the function is broken, and the work it recovers is not recovered`,
        2,
        { below: true, silence: 'breaching' },
      );
    }

    // The synthetic probe (functions/schedules/probe-api.ts): a real read path through the public URL, every
    // minute. Two failed minutes of three, or no probe result at all, page.
    this.apiProbe = alarm(
      'ApiProbe',
      new Metric({
        namespace: metricsNamespace,
        metricName: probeSuccessMetricName,
        dimensionsMap: { service: 'service-api' },
        period: Duration.minutes(1),
        statistic: 'Minimum',
      }),
      1,
      'The API probe failed (its log has the status and the problem) or stopped reporting: the API does not answer its public URL as a client would see it',
      3,
      { below: true, silence: 'breaching', datapointsToAlarm: 2 },
    );

    // Route functions: an error (an unhandled failure or a timeout; handled errors answer 5xx and count in the
    // API's 5xx rate) in any function of an API area, at most 10 functions an alarm.
    for (const { id, area, scope: areaScope, functions } of props.routeAreas) {
      for (let start = 0; start < functions.length; start += maxAlarmMetrics) {
        const watched = functions.slice(start, start + maxAlarmMetrics);
        const usingMetrics = Object.fromEntries(watched.map((fn, index) => [`e${index}`, fn.function.metricErrors({ period: fiveMinutes, statistic: 'Sum' })]));
        const part = start === 0 ? '' : `Part${start / maxAlarmMetrics + 1}`;
        const areaAlarm = alarm(
          `${id}${part}RouteErrors`,
          new MathExpression({ expression: filledSum(Object.keys(usingMetrics)), usingMetrics, period: fiveMinutes, label: `${area} errors` }),
          1,
          `A function under ${area} failed or timed out (its log group has the error): ${watched.map((fn) => fn.node.id).join(', ')}`,
          1,
          { scope: areaScope },
        );
        for (const fn of watched) this.routeErrorAlarms.set(fn, areaAlarm);
      }
    }

    // Requests the functions refused with 429 (the per-key, meter-event and search limits), as a share of all.
    const rateLimited = new Metric({
      namespace: metricsNamespace,
      metricName: rateLimitedMetricName,
      dimensionsMap: { service: 'service-api' },
      period: fiveMinutes,
      statistic: 'Sum',
    });
    const rateLimitedPercent = new MathExpression({
      expression: 'IF(requests >= 100, 100 * limited / requests, 0)',
      usingMetrics: { requests, limited: rateLimited },
      period: fiveMinutes,
      label: '429 %',
    });
    alarm(
      'ApiRateLimited',
      rateLimitedPercent,
      alarmThresholds.rateLimitedPercent,
      `More than ${alarmThresholds.rateLimitedPercent}% of API requests answered 429 over five minutes: a client over its limit, or limits too low for the load (docs/operations.md)`,
    );

    // DynamoDB: throttles and system errors on the table, throttles on each index (an index's write
    // throttles hold back the table's writes).
    const { table } = props;
    /** `metricName` of the table summed over the operations the functions call (each published only when it happens). */
    const perOperation = (metricName: string) => {
      const usingMetrics = Object.fromEntries(
        tableOperations.map((operation, index) => [
          `o${index}`,
          new Metric({
            namespace: 'AWS/DynamoDB',
            metricName,
            dimensionsMap: { TableName: table.tableName, Operation: operation },
            period: fiveMinutes,
            statistic: 'Sum',
          }),
        ]),
      );
      return new MathExpression({ expression: filledSum(Object.keys(usingMetrics)), usingMetrics, period: fiveMinutes, label: metricName });
    };
    alarm(
      'TableThrottles',
      perOperation('ThrottledRequests'),
      1,
      'DynamoDB throttled requests on the service table: a hot partition or the table over its on-demand maximum (docs/capacity.md)',
    );
    alarm(
      'TableSystemErrors',
      perOperation('SystemErrors'),
      1,
      'DynamoDB answered the service table with system errors (HTTP 500): the SDK retries them; sustained, see the AWS Health Dashboard',
    );
    for (const { indexName } of tableSchema.globalIndexes) {
      const dimensionsMap = { TableName: table.tableName, GlobalSecondaryIndexName: indexName };
      const throttles = (metricName: string) => new Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap, period: fiveMinutes, statistic: 'Sum' });
      alarm(
        `${indexName}Throttles`,
        new MathExpression({
          expression: filledSum(['reads', 'writes']),
          usingMetrics: { reads: throttles('ReadThrottleEvents'), writes: throttles('WriteThrottleEvents') },
          period: fiveMinutes,
          label: `${indexName} throttles`,
        }),
        1,
        `DynamoDB throttled the ${indexName} index: its writes hold back the table's (docs/capacity.md, hot keys)`,
      );
    }

    // The daily backup and its copy out of the account or region: a failed job pages (a copy that fails every
    // day is the backup that would not be there when the account or region is lost).
    if (props.backupVaultName) {
      for (const [id, metricName, what] of [
        ['BackupJobsFailed', 'NumberOfBackupJobsFailed', 'The daily backup of the table failed'],
        ['BackupCopyJobsFailed', 'NumberOfCopyJobsFailed', 'Copying the daily backup to the vault of backupCopyVaultArn failed'],
      ] as const) {
        alarm(
          id,
          new Metric({
            namespace: 'AWS/Backup',
            metricName,
            dimensionsMap: { BackupVaultName: props.backupVaultName },
            period: Duration.hours(1),
            statistic: 'Sum',
          }),
          1,
          `${what}: AWS Backup's job list has the reason (docs/operations.md, Backups and restore)`,
        );
      }
    }

    // Poison work the sweepers parked (a `parked: true` ERROR line).
    const parkedWork = new Metric({ namespace: metricsNamespace, metricName: parkedWorkMetricName, period: fiveMinutes, statistic: 'Sum' });
    for (const [name, fn] of Object.entries(props.scheduledJobs)) {
      new MetricFilter(this, `${pascal(name)}Parked`, {
        logGroup: fn.logGroup,
        filterPattern: FilterPattern.booleanValue('$.parked', true),
        metricNamespace: metricsNamespace,
        metricName: parkedWorkMetricName,
        metricValue: '1',
        defaultValue: 0,
      });
    }
    alarm('ParkedWork', parkedWork, 1, 'A sweeper parked work the workers kept failing on; its key is in the sweeper log, see docs/operations.md');

    // Queue messages the workers refused (a `refusedMessage: true` ERROR line): someone who may send to a queue
    // is putting messages the service did not write on it, or a message disagreed with the records it names.
    const refusedMessages = new Metric({ namespace: metricsNamespace, metricName: refusedMessagesMetricName, period: fiveMinutes, statistic: 'Sum' });
    for (const [name, fn] of Object.entries(props.queueWorkers)) {
      new MetricFilter(this, `${pascal(name)}RefusedMessages`, {
        logGroup: fn.logGroup,
        filterPattern: FilterPattern.booleanValue('$.refusedMessage', true),
        metricNamespace: metricsNamespace,
        metricName: refusedMessagesMetricName,
        metricValue: '1',
        defaultValue: 0,
      });
    }
    alarm('RefusedQueueMessages', refusedMessages, 1, 'A queue worker refused a message the service did not seal; the sender is in the worker log (senderId)');

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    const graph = (title: string, left: IMetric[], width = 8) => new GraphWidget({ title, left, width, height: 6 });
    const functions = Object.entries({ ...props.queueWorkers, ...props.scheduledJobs });
    const deliveryOutcomes = Object.values(deliveryOutcomeMetrics).map(
      (metricName) => new Metric({ namespace: metricsNamespace, metricName, dimensionsMap: { service: 'service-api' }, period: fiveMinutes, statistic: 'Sum' }),
    );
    const routeInvocations = Object.entries(props.routeFunctions).map(([name, fn]) =>
      fn.function.metricInvocations({ period: fiveMinutes, statistic: 'Sum', label: name }),
    );
    this.dashboard.addWidgets(
      new TextWidget({ markdown: '# Service API\nAlarms and their runbook: docs/operations.md', width: 24, height: 2 }),
      graph('API requests and errors', [requests, props.stage.metricClientError({ period: fiveMinutes, statistic: 'Sum' }), serverErrors]),
      graph('API latency (p50, p99)', [props.stage.metricLatency({ period: fiveMinutes, statistic: 'p50' }), latencyP99]),
      graph('API 5xx %', [serverErrorPercent]),
    );
    // One graph holds at most 100 metrics (CloudWatch's limit); the routes are spread over as many as needed.
    for (let start = 0; start < routeInvocations.length; start += 100) {
      this.dashboard.addWidgets(graph(`Requests per route${start ? ' (continued)' : ''}`, routeInvocations.slice(start, start + 100), 24));
    }
    this.dashboard.addWidgets(
      graph('Delivery outcomes', deliveryOutcomes),
      graph(
        'Queue backlog (visible messages)',
        Object.values(props.queues).map(({ queue }) => queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes })),
      ),
      graph(
        'Oldest message age (s)',
        Object.values(props.queues).map(({ queue }) => queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes })),
      ),
      graph(
        'Dead letters',
        Object.values(props.queues).map(({ deadLetterQueue }) => deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes })),
      ),
      graph(
        'Worker and job errors',
        functions.map(([name, fn]) => fn.function.metricErrors({ period: fiveMinutes, statistic: 'Sum', label: name })),
      ),
      graph(
        'Worker and job throttles',
        functions.map(([name, fn]) => fn.function.metricThrottles({ period: fiveMinutes, statistic: 'Sum', label: name })),
      ),
      graph(
        'Worker and job duration p99 (ms)',
        functions.map(([name, fn]) => fn.function.metricDuration({ period: fiveMinutes, statistic: 'p99', label: name })),
      ),
      graph('Parked work', [parkedWork]),
    );
  }

  /** The error alarm of the area (or part of it) that watches route function `fn`. */
  routeErrorAlarmOf(fn: ServiceFunction): Alarm {
    const found = this.routeErrorAlarms.get(fn);
    if (!found) throw new Error(`No route error alarm watches ${fn.node.path}`);
    return found;
  }
}

const pascal = (name: string) => name.replace(/(^|[-_])(\w)/g, (_, __, letter: string) => letter.toUpperCase());
