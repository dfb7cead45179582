import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { logger } from './logger.ts';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'service-api';

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

/**
 * A scheduled job's Lambda handler: its log lines carry the invocation's context (function name, request id,
 * cold start) as the HTTP handlers' do through middy, and what it counted is flushed however the run ends.
 * Without it a job's lines carried no function name on AWS, and locally, where the jobs share the process
 * with the route handlers, the name of whichever route ran last.
 */
export const scheduledJob =
  <R>(run: () => Promise<R>) =>
  async (_event?: unknown, context?: Context): Promise<R> => {
    if (context) logger.addContext(context);
    try {
      return await run();
    } finally {
      flushMetrics();
    }
  };
