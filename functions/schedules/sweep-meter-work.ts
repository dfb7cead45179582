import { scheduledJob } from '#shared/core/observability.ts';
import { logger } from '#shared/core/logger.ts';
import { wireMeterWorkSweeper } from '#shared/meter-events/wiring.ts';

const sweeper = wireMeterWorkSweeper();

/** Every minute: re-queues accepted meter events, stream batches and cancellations whose message was lost. */
export const handler = scheduledJob(async () => {
  const requeued = await sweeper.sweep();
  if (requeued > 0) logger.info('Swept unfinished meter work', { requeued });
  return { requeued };
});
