import { scheduledJob } from '#shared/core/observability.ts';
import { wireAlertEvaluator } from '#shared/billing-alerts/wiring.ts';
import { logger } from '#shared/core/logger.ts';

const evaluator = wireAlertEvaluator();

/** Every minute: fires the pending billing alerts whose customer's usage reached their threshold (`billing.alert.triggered`). */
export const handler = scheduledJob(async () => {
  const run = await evaluator.evaluatePending();
  if (run.triggered + run.failed > 0) logger.info('Evaluated billing alerts', run);
  return run;
});
