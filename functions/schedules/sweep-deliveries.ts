import { wireDeliveryService } from '#shared/delivery/wiring.ts';
import { logger } from '#shared/logger.ts';
import { flushMetrics } from '#shared/observability.ts';

const service = wireDeliveryService();

/** Every minute: re-enqueues pending deliveries that are overdue (a lost message, a backoff longer than SQS delays). */
export const handler = async () => {
  try {
    const requeued = await service.sweep();
    if (requeued > 0) logger.info('Swept overdue deliveries', { requeued });
    return { requeued };
  } finally {
    flushMetrics();
  }
};
