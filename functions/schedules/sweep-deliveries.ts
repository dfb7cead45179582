import { wireDeliveryService } from '#shared/delivery/wiring.ts';
import { wireFanOutService } from '#shared/events/wiring.ts';
import { logger } from '#shared/core/logger.ts';
import { scheduledJob } from '#shared/core/observability.ts';

const service = wireDeliveryService();
const fanOuts = wireFanOutService();

/**
 * Every minute: re-enqueues fan-outs and pending deliveries that are overdue (a lost message, a backoff
 * longer than SQS delays).
 */
export const handler = scheduledJob(async () => {
  const [fannedOut, requeued] = await Promise.all([fanOuts.sweep(), service.sweep()]);
  if (fannedOut + requeued > 0) logger.info('Swept overdue fan-outs and deliveries', { fannedOut, requeued });
  return { requeued, fannedOut };
});
