import { isFanOutMessage, type DeliveriesQueueMessage, type DeliveryMessage, type FanOutMessage } from '#shared/events/ports.ts';
import { openRecord, type QueueRecord, type QueueSeal } from '#shared/messaging/message-seal.ts';

export interface DeliveriesWorkerPorts {
  /** The deliveries queue's seal: a message it does not open is refused. */
  seal: QueueSeal;
  deliveries: { deliver(message: DeliveryMessage): Promise<void> };
  fanOuts: { run(message: FanOutMessage): Promise<void> };
}

/**
 * One record of the deliveries queue: a fan-out message becomes its deliveries, a delivery message one
 * attempt. Only messages the service sealed are read; any other is logged and dropped (never posted, never
 * retried). Throws only when the work fails (the queue then retries the record).
 */
export function deliveriesWorker({ seal, deliveries, fanOuts }: DeliveriesWorkerPorts) {
  return async (record: QueueRecord): Promise<void> => {
    const body = await openRecord(seal, 'deliveries', record);
    if (body === undefined) return;
    const message = JSON.parse(body) as DeliveriesQueueMessage;
    return isFanOutMessage(message) ? fanOuts.run(message) : deliveries.deliver(message);
  };
}
