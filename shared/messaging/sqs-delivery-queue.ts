import type { DeliveriesQueueMessage, DeliveryQueue } from '#shared/events/ports.ts';
import { batchedSender } from './batched-sender.ts';
import type { QueueSeal } from './message-seal.ts';

/**
 * SQS adapter for the deliveries queue: messages as JSON, each sealed (the worker drops what the service did
 * not seal), through the service's one sender (its batches, its limits); a refused message fails the
 * enqueue (the sweeper covers what is lost).
 */
/** Delivery sends are on each attempt's and each change's path: up to this many calls out at once per process. */
const deliverySendsInFlight = 16;

export function sqsDeliveryQueue(queueUrl: string, seal: QueueSeal, send = batchedSender(queueUrl, undefined, deliverySendsInFlight)): DeliveryQueue {
  return {
    enqueue: async (messages: DeliveriesQueueMessage[], delaySeconds = 0) =>
      send(await seal.seal(messages.map((message) => JSON.stringify(message))), delaySeconds),
  };
}
