import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { wireDeliveryService } from '#shared/delivery/wiring.ts';
import type { DeliveryMessage } from '#shared/events/ports.ts';
import { flushMetrics } from '#shared/observability.ts';

const service = wireDeliveryService();
const processor = new BatchProcessor(EventType.SQS);

const deliverRecord = (record: SQSRecord) => service.deliver(JSON.parse(record.body) as DeliveryMessage);

/** Deliveries queue worker: one delivery per message, records processed in parallel, failures reported per item. */
export const handler = async (event: SQSEvent, context: Context) => {
  try {
    return await processPartialResponse(event, deliverRecord, processor, { context });
  } finally {
    flushMetrics();
  }
};
