import { Duration } from 'aws-cdk-lib';
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
import { type Subscription, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { deliveryOutcomeMetrics } from '#shared/delivery/delivery-service.ts';
import type { QueueName } from '#shared/messaging/queues.ts';
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
  /** Subscribed to the alarm topic by email when given. */
  alarmEmail?: string;
}

/** The thresholds of the alarm baseline, in one place (docs/operations.md explains each). */
export const alarmThresholds = {
  /** Percent of API requests answered 5xx over five minutes (at least 20 requests). */
  apiServerErrorPercent: 1,
  /** Milliseconds of p99 latency, sustained for three five-minute periods. */
  apiLatencyP99Millis: 2_000,
  /** Seconds the oldest message of a queue may wait; deliveries may be delayed up to 900 s on purpose. */
  oldestMessageSeconds: { deliveries: 1_800, 'meter-events': 300, billing: 300 } satisfies Record<QueueName, number>,
} as const;

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

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);

    const topicKey = new Key(this, 'AlarmTopicKey', { description: 'Encrypts the alarm topic', enableKeyRotation: true });
    topicKey.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'AlarmTopic', { displayName: 'Service API alarms', masterKey: topicKey, enforceSSL: true });
    if (props.alarmEmail) this.emailSubscription = this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const alarm = (alarmId: string, metric: IMetric, threshold: number, description: string, evaluationPeriods = 1) => {
      const created = new Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
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
    alarm(
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
      alarm(`${id}Errors`, fn.function.metricErrors({ period: fiveMinutes, statistic: 'Sum' }), 1, `${name} failed (its log group has the error)`);
      alarm(
        `${id}Throttles`,
        fn.function.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }),
        1,
        `${name} was throttled: the account's concurrency is exhausted`,
      );
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
}

const pascal = (name: string) => name.replace(/(^|[-_])(\w)/g, (_, __, letter: string) => letter.toUpperCase());
