import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent } from 'aws-lambda';
import { deliveriesWorker } from '#shared/delivery/deliveries-worker.ts';
import { wireDeliveryService } from '#shared/delivery/wiring.ts';
import { wireFanOutService } from '#shared/events/wiring.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';
import { flushMetrics } from '#shared/observability.ts';

const handleRecord = deliveriesWorker({ seal: wireQueueSeal('deliveries'), deliveries: wireDeliveryService(), fanOuts: wireFanOutService() });
const processor = new BatchProcessor(EventType.SQS);

/**
 * Deliveries queue worker: a fan-out message becomes its deliveries, a delivery message one attempt, a
 * message the service did not seal nothing; records processed in parallel, failures reported per item.
 */
export const handler = async (event: SQSEvent, context: Context) => {
  try {
    return await processPartialResponse(event, handleRecord, processor, { context });
  } finally {
    flushMetrics();
  }
};
