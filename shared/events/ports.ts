import type { Scope } from '#shared/platform/types.ts';
import type { Delivery, DestinationRef, EventRef, Outbox, Subscriber, ThinEvent } from './event.ts';

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
  /**
   * The delivery record as it stood when the message was sent, so the worker need not read it: the
   * conditional write of the outcome (still pending, same attempt count) makes a stale copy record nothing.
   */
  delivery?: Delivery;
  /** A small thin event travels with its message (events never change), so the worker need not read it. */
  thinEvent?: ThinEvent;
}

export interface DeliveryQueue {
  /** Puts messages on the queue, optionally delayed (at most 900 s, SQS's limit). */
  enqueue(messages: DeliveryMessage[], delaySeconds?: number): Promise<void>;
}

/** Thin events up to this size ride along, so that a batch of 10 messages stays well inside SQS's 256 KiB. */
const maxCarriedEventBytes = 8 * 1024;

export function deliveryMessage(delivery: Delivery, thinEvent?: ThinEvent): DeliveryMessage {
  const message: DeliveryMessage = { deliveryId: delivery.id, event: delivery.event, destination: delivery.destination, delivery };
  if (thinEvent && thinEvent.id === delivery.event.id && Buffer.byteLength(JSON.stringify(thinEvent)) <= maxCarriedEventBytes) {
    message.thinEvent = thinEvent;
  }
  return message;
}
