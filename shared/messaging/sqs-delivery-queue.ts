import type { DeliveryMessage, DeliveryQueue } from '#shared/events/ports.ts';
import { batchedSender } from './batched-sender.ts';

/**
 * SQS adapter for the deliveries queue: messages as JSON through the service's one sender (its batches, its
 * limits); a refused message fails the enqueue (the sweeper covers what is lost).
 */
export function sqsDeliveryQueue(queueUrl: string, send = batchedSender(queueUrl)): DeliveryQueue {
  return {
    enqueue: (messages: DeliveryMessage[], delaySeconds = 0) =>
      send(
        messages.map((message) => JSON.stringify(message)),
        delaySeconds,
      ),
  };
}
