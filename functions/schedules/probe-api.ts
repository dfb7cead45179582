import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { probeApi, probeSuccessMetricName } from '#shared/core/api-probe.ts';
import { logger } from '#shared/core/logger.ts';
import { scheduledJob, metrics } from '#shared/core/observability.ts';

/**
 * Every minute, on AWS only (infra/stateless-stack.ts): the synthetic probe. Calls a real read path of the
 * deployed API through its public URL (`PROBE_URL`) and counts `ProbeSuccess` (1 or 0) and `ProbeLatency`;
 * the `ApiProbe` alarm fires on a failure and on silence (the probe itself not running).
 */
export const handler = scheduledJob(async () => {
  const url = process.env.PROBE_URL;
  if (!url) throw new Error('PROBE_URL is not set');
  const result = await probeApi(url);
  metrics.addMetric(probeSuccessMetricName, MetricUnit.Count, result.ok ? 1 : 0);
  metrics.addMetric('ProbeLatency', MetricUnit.Milliseconds, result.millis);
  if (!result.ok) logger.error('API probe failed', { ...result });
  return result;
});
