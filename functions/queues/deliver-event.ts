import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { wireDeliveryService } from '#shared/delivery/wiring.ts';
import { isFanOutMessage, type DeliveriesQueueMessage } from '#shared/events/ports.ts';
import { wireFanOutService } from '#shared/events/wiring.ts';
import { sqsBatchHandler } from '#shared/messaging/sqs-batch-handler.ts';
import { flushMetrics } from '#shared/observability.ts';

const service = wireDeliveryService();
const fanOuts = wireFanOutService();

const processBatch = sqsBatchHandler((record: SQSRecord) => {
  const message = JSON.parse(record.body) as DeliveriesQueueMessage;
  return isFanOutMessage(message) ? fanOuts.run(message) : service.deliver(message);
});

/**
 * Deliveries queue worker: a fan-out message becomes its deliveries, a delivery message one attempt;
 * records processed in parallel, failures reported per item.
 */
export const handler = async (event: SQSEvent, context: Context) => {
  try {
    return await processBatch(event, context);
  } finally {
    flushMetrics();
  }
};
