import { scheduledJob } from '#shared/core/observability.ts';
import { logger } from '#shared/core/logger.ts';
import { wireThresholdEvaluator } from '#shared/subscriptions/wiring.ts';

const evaluator = wireThresholdEvaluator();

/** Every minute: invoices early (`subscription_threshold`) the subscriptions whose usage reached their billing thresholds. */
export const handler = scheduledJob(async () => {
  const run = await evaluator.evaluateStack();
  if (run.invoiced + run.failed > 0) logger.info('Evaluated billing thresholds', run);
  return run;
});
