import type { Context, SQSEvent } from 'aws-lambda';
import { deliveriesWorker } from '#shared/delivery/deliveries-worker.ts';
import { wireDeliveryService } from '#shared/delivery/wiring.ts';
import { wireFanOutService } from '#shared/events/wiring.ts';
import { sqsBatchHandler } from '#shared/messaging/sqs-batch-handler.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';
import { flushMetrics } from '#shared/core/observability.ts';

const processBatch = sqsBatchHandler(deliveriesWorker({ seal: wireQueueSeal('deliveries'), deliveries: wireDeliveryService(), fanOuts: wireFanOutService() }));

/**
 * Deliveries queue worker: a fan-out message becomes its deliveries, a delivery message one attempt, a
 * message the service did not seal nothing; records processed in parallel, failures reported per item.
 */
export const handler = async (event: SQSEvent, context: Context) => {
  try {
    return await processBatch(event, context);
  } finally {
    flushMetrics();
  }
};
