import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/core/logger.ts';
import type { MeterWork } from '#shared/meter-events/meter-event.ts';
import { wireMeterEventProcessor } from '#shared/meter-events/wiring.ts';
import { openRecord } from '#shared/messaging/message-seal.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';

const processor = wireMeterEventProcessor();
const seal = wireQueueSeal('meter-events');

/**
 * Meter-events queue worker. A batch is processed together (usage is aggregated across it); the messages
 * of work that failed come back for redelivery, which counts nothing twice, and so does the whole batch
 * when a failure touches all of it. An unreadable message fails alone; one the service did not seal is dropped.
 */
export const handler = async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
  const work: MeterWork[] = [];
  const messageOf = new Map<MeterWork, string>();
  const unreadable: string[] = [];
  for (const record of event.Records) {
    // A message the service did not seal is dropped: it would count usage or report errors on its word alone.
    const body = await openRecord(seal, 'meter-events', record);
    if (body === undefined) continue;
    try {
      const item = JSON.parse(body) as MeterWork;
      work.push(item);
      messageOf.set(item, record.messageId);
    } catch {
      unreadable.push(record.messageId);
    }
  }
  let failed: MeterWork[];
  try {
    failed = await processor.process(work);
  } catch (error) {
    logger.error('Meter event batch failed; it will be redelivered', { error: error as Error, messages: event.Records.length });
    return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
  }
  return { batchItemFailures: [...unreadable, ...failed.map((item) => messageOf.get(item)!)].map((itemIdentifier) => ({ itemIdentifier })) };
};
