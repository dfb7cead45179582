import { scheduledJob } from '#shared/core/observability.ts';
import { wireDueRunner } from '#shared/billing/due-processors.ts';
import { logger } from '#shared/core/logger.ts';

const runner = wireDueRunner();

/** Every minute: puts the billing objects due on the stack's clock (and test clock advances left unfinished) on the billing queue. */
export const handler = scheduledJob(async () => {
  const swept = await runner.sweep();
  if (swept.dispatched + swept.unhandled > 0) logger.info('Swept due billing objects', swept);
  return swept;
});
