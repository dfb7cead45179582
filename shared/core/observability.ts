import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Tracer } from '@aws-lambda-powertools/tracer';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'service-api';

/** On Lambda (the local stack never sets `AWS_LAMBDA_FUNCTION_NAME`), unless `POWERTOOLS_TRACE_ENABLED=false`. */
const tracing = process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined && process.env.POWERTOOLS_TRACE_ENABLED !== 'false';

/**
 * One X-Ray tracer per process (Powertools Tracer), on Lambda only: it follows the function's active
 * tracing (Lambda's sampling: the first request each second and 5 % of the rest), and traces outbound HTTP calls
 * (webhooks, Event Grid) as subsegments. Loaded only where it traces: the X-Ray SDK installs an async hook
 * on import (cls-hooked) that makes every `await` of the process about ten times slower, a cost the local
 * stack, which runs every function in one process, and the tests must not pay for nothing.
 */
export const tracer: Tracer | undefined = tracing ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName }) : undefined;

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
export const traced = <T>(client: T): T => (tracer ? tracer.captureAWSv3Client(client) : client);
