import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'service-api';

/**
 * One X-Ray tracer per process (Powertools Tracer). It turns itself off outside Lambda, so the local stack
 * and the tests trace nothing; on Lambda it follows the function's active tracing and the account's
 * sampling rules (infra/stateless-stack.ts sets the service's rate). Outbound HTTP calls (webhooks, Event
 * Grid) are traced as subsegments.
 */
export const tracer = new Tracer({ serviceName });

/**
 * One Powertools Metrics instance per process, in the `POWERTOOLS_METRICS_NAMESPACE` namespace with the
 * `service` dimension: metrics are written as embedded-metric-format log lines, aggregated per invocation
 * and flushed by `flushMetrics`. Off in the local stack (`POWERTOOLS_METRICS_DISABLED`).
 */
export const metrics = new Metrics({ serviceName, namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'ServiceApi' });

/** Counts one occurrence of `name` in this invocation. */
export function countMetric(name: string): void {
  metrics.addMetric(name, MetricUnit.Count, 1);
}

/** Writes what this invocation counted, if anything (an empty flush would log a warning). */
export function flushMetrics(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}

/** Lets X-Ray see the calls of an AWS SDK client as subsegments; the client is returned unchanged otherwise. */
export const traced = <T>(client: T): T => tracer.captureAWSv3Client(client);
