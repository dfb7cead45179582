import { config } from '#shared/core/config.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoFanOutStore, dynamoOutboxStore, dynamoSubscriberDirectory } from '#shared/data/event-outbox.ts';
import { dynamoEventRepository } from '#shared/data/event-repository.ts';
import { sqsDeliveryQueue } from '#shared/messaging/sqs-delivery-queue.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';
import { eventEmitter, type EventEmitter } from './emitter.ts';
import { eventService } from './event-service.ts';
import { fanOutService } from './fan-out.ts';
import { maxSweepsWithoutAttempt } from './parking.ts';

const deliveriesQueueUrl = () => {
  const queueUrl = config().DELIVERIES_QUEUE_URL;
  if (!queueUrl) throw new Error('Invalid configuration: DELIVERIES_QUEUE_URL is required to emit events');
  return queueUrl;
};

let emitter: EventEmitter | undefined;

/** The event emitter on its real adapters, once per process. */
export function wireEventEmitter(): EventEmitter {
  emitter ??= eventEmitter({ store: dynamoOutboxStore(serviceTable()), queue: sqsDeliveryQueue(deliveriesQueueUrl(), wireQueueSeal('deliveries')) });
  return emitter;
}

/** The fan-out of emitted events on its real adapters: the deliveries worker and its sweeper call this once at cold start. */
export function wireFanOutService() {
  const table = serviceTable();
  return fanOutService({
    subscribers: dynamoSubscriberDirectory(table),
    store: dynamoFanOutStore(table),
    queue: sqsDeliveryQueue(deliveriesQueueUrl(), wireQueueSeal('deliveries')),
    sweepGraceMillis: config().SWEEP_GRACE_SECONDS * 1000,
    maxSweeps: maxSweepsWithoutAttempt,
  });
}

/** The event read service on its real adapters; handlers call this once at module scope. */
export const wireEventService = () => eventService({ store: dynamoEventRepository(serviceTable()) });
