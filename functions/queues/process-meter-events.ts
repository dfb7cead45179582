import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/logger.ts';
import type { MeterWork } from '#shared/meter-events/meter-event.ts';
import { wireMeterEventProcessor } from '#shared/meter-events/wiring.ts';

const processor = wireMeterEventProcessor();

/**
 * Meter-events queue worker. A batch is processed as a whole (usage is aggregated across it); a failure
 * returns every message for redelivery, which counts nothing twice. An unreadable message fails alone.
 */
export const handler = async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
  const work: MeterWork[] = [];
  const unreadable: string[] = [];
  for (const record of event.Records) {
    try {
      work.push(JSON.parse(record.body) as MeterWork);
    } catch {
      unreadable.push(record.messageId);
    }
  }
  try {
    await processor.process(work);
  } catch (error) {
    logger.error('Meter event batch failed; it will be redelivered', { error: error as Error, messages: event.Records.length });
    return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
  }
  return { batchItemFailures: unreadable.map((itemIdentifier) => ({ itemIdentifier })) };
};
