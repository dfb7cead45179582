import { config } from '#shared/config.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoOutboxStore, dynamoSubscriberDirectory } from '#shared/data/event-outbox.ts';
import { dynamoEventRepository } from '#shared/data/event-repository.ts';
import { sqsDeliveryQueue } from '#shared/messaging/sqs-delivery-queue.ts';
import { eventEmitter, type EventEmitter } from './emitter.ts';
import { eventService } from './event-service.ts';

let emitter: EventEmitter | undefined;

/** The event emitter on its real adapters, once per process. */
export function wireEventEmitter(): EventEmitter {
  if (!emitter) {
    const table = serviceTable();
    const queueUrl = config().DELIVERIES_QUEUE_URL;
    if (!queueUrl) throw new Error('Invalid configuration: DELIVERIES_QUEUE_URL is required to emit events');
    emitter = eventEmitter({ subscribers: dynamoSubscriberDirectory(table), store: dynamoOutboxStore(table), queue: sqsDeliveryQueue(queueUrl) });
  }
  return emitter;
}

/** The event read service on its real adapters; handlers call this once at module scope. */
export const wireEventService = () => eventService({ store: dynamoEventRepository(serviceTable()) });
