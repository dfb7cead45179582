import type { Scope } from '#shared/platform/types.ts';
import type { Delivery, DestinationRef, EventRef, FanOut, Outbox, Subscriber, ThinEvent } from './event.ts';

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

/** The fan-out of a change's events, on the deliveries queue. */
export interface FanOutMessage {
  fanOut: FanOut;
  /** Small thin events travel on, into their deliveries' messages. */
  thinEvents: ThinEvent[];
}

export type DeliveriesQueueMessage = DeliveryMessage | FanOutMessage;

export const isFanOutMessage = (message: DeliveriesQueueMessage): message is FanOutMessage => 'fanOut' in message;

export interface DeliveryQueue {
  /** Puts messages on the queue, optionally delayed (at most 900 s, SQS's limit). */
  enqueue(messages: DeliveriesQueueMessage[], delaySeconds?: number): Promise<void>;
}

/** Fan-out records: written with their change (in its outbox), removed as their deliveries are written. */
export interface FanOutStore {
  /**
   * Writes the deliveries, adds each snapshot event's `pending_webhooks`, and removes the record (in one
   * transaction when they fit). Answers the deliveries this call wrote (those an earlier, interrupted run
   * wrote are due already), or undefined if the record is gone (another worker fanned it out).
   */
  complete(fanOut: FanOut, deliveries: Delivery[], pendingWebhooks: Map<string, number>): Promise<Delivery[] | undefined>;
  /** Records written at or before `dueBy` and still there, at most `limit` per call. */
  overdue(dueBy: number, limit: number): Promise<FanOut[]>;
  /** Moves a record's due time to `to` and counts the sweep; false if it is gone or was swept meanwhile. */
  reschedule(fanOut: FanOut, to: number): Promise<boolean>;
  /** Takes a record out of the due index for good (a fan-out the worker keeps failing on). */
  park(fanOut: FanOut): Promise<void>;
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

/** A fan-out's message, with as many of the outbox's thin events as fit in what one delivery message may carry. */
export function fanOutMessage(fanOut: FanOut, thinEvents: ThinEvent[]): FanOutMessage {
  const message: FanOutMessage = { fanOut, thinEvents: [] };
  let bytes = 0;
  for (const thinEvent of thinEvents) {
    bytes += Buffer.byteLength(JSON.stringify(thinEvent));
    if (bytes > maxCarriedEventBytes) break;
    message.thinEvents.push(thinEvent);
  }
  return message;
}
