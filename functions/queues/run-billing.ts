import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type DueMessage, dueMessage } from '#shared/billing/due-message.ts';
import { wireDueRunner } from '#shared/billing/due-processors.ts';
import { systemClock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import { openRecord } from '#shared/messaging/message-seal.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';

const runner = wireDueRunner();
const seal = wireQueueSeal('billing');

/**
 * Billing queue worker: each message points at one billing object whose due work should run now (a test
 * clock that started advancing). A message the service did not seal, or cannot read, is dropped: the object
 * stays due and the sweeper runs it. A failed run comes back for redelivery, which does nothing twice.
 */
export const handler = async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
  const failures: string[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const body = await openRecord(seal, 'billing', record);
      if (body === undefined) return;
      let message: DueMessage;
      try {
        message = dueMessage.parse(JSON.parse(body));
      } catch {
        logger.error('Unreadable billing message dropped', { messageId: record.messageId });
        return;
      }
      try {
        if (!(await runner.runOne(message.kind, message.scope, message.id, systemClock()))) {
          logger.error('A billing message names a kind no processor handles', { kind: message.kind, id: message.id });
        }
      } catch (error) {
        logger.error('Billing work failed; it will be redelivered', { kind: message.kind, id: message.id, error: error as Error });
        failures.push(record.messageId);
      }
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
};
