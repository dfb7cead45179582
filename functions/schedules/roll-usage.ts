import { scheduledJob } from '#shared/core/observability.ts';
import { logger } from '#shared/core/logger.ts';
import { wireUsageRollSweeper } from '#shared/meter-events/wiring.ts';

const sweeper = wireUsageRollSweeper();

/** Every minute: rolls the hours of the registered usage partitions whose daily roll is due. */
export const handler = scheduledJob(async () => {
  const swept = await sweeper.sweep();
  if (swept.rolled > 0) logger.info('Rolled usage partitions', swept);
  return swept;
});
