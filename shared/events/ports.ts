import type { Scope } from '#shared/platform/types.ts';
import type { Delivery, DestinationRef, EventRef, Outbox, Subscriber } from './event.ts';

/** The destinations and v1 endpoints of a platform (one mode) that events may fan out to. */
export interface SubscriberDirectory {
  subscribersOf(platform: Scope): Promise<Subscriber[]>;
}

/** Writes an outbox on its own, for changes that write nothing else (a ping). */
export interface OutboxStore {
  commit(outbox: Outbox): Promise<void>;
}

/** What travels on the deliveries queue: enough to load the delivery, its event and destination at once. */
export interface DeliveryMessage {
  deliveryId: string;
  event: EventRef;
  destination: DestinationRef;
}

export interface DeliveryQueue {
  /** Puts messages on the queue, optionally delayed (at most 900 s, SQS's limit). */
  enqueue(messages: DeliveryMessage[], delaySeconds?: number): Promise<void>;
}

export const deliveryMessage = (delivery: Delivery): DeliveryMessage => ({
  deliveryId: delivery.id,
  event: delivery.event,
  destination: delivery.destination,
});
