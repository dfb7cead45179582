import { systemClock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import { openRecord, type QueueRecord, type QueueSeal } from '#shared/messaging/message-seal.ts';
import { type DueMessage, dueMessage } from './due-message.ts';
import type { DueRunner } from './due-runner.ts';

/**
 * The `billing` queue's work: each message points at one billing object whose due work should run now (a
 * test clock that started advancing). A message the service did not seal, or that does not read as a
 * pointer, is dropped: the object stays due and the sweeper runs it. A run that failed is answered as a
 * failure, for redelivery, which does nothing twice. Answers the ids of the messages to redeliver.
 */
export function billingWorker({ runner, seal, clock = systemClock }: { runner: Pick<DueRunner, 'runOne'>; seal: QueueSeal; clock?: () => number }) {
  return async (records: QueueRecord[]): Promise<string[]> => {
    const failures: string[] = [];
    await Promise.all(
      records.map(async (record) => {
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
          if (!(await runner.runOne(message.kind, message.scope, message.id, clock()))) {
            logger.error('A billing message names a kind no processor handles', { kind: message.kind, id: message.id });
          }
        } catch (error) {
          logger.error('Billing work failed; it will be redelivered', { kind: message.kind, id: message.id, error: error as Error });
          failures.push(record.messageId);
        }
      }),
    );
    return failures;
  };
}
