import { systemClock } from '#shared/core/clock.ts';
import { derivedId, newId } from '#shared/core/ids.ts';
import { logger } from '#shared/core/logger.ts';
import type { Scope } from '#shared/platform/types.ts';
import { thinMirrorOf } from './catalogue.ts';
import {
  emptyOutbox,
  type Delivery,
  type DestinationRef,
  type EventInput,
  type EventKind,
  type EventOrigin,
  type FanOut,
  type Outbox,
  type RelatedObject,
  type SnapshotEvent,
  type Subscriber,
  type ThinEvent,
} from './event.ts';
import { deliveryMessage, fanOutMessage, type DeliveriesQueueMessage, type DeliveryQueue, type OutboxStore } from './ports.ts';

/**
 * The one port every capability calls when state changes. A change is written together with its outbox
 * (its events, and the record of their fan-out), then the fan-out goes on the deliveries queue, where the
 * worker turns it into one delivery per matching destination. The request reads no subscribers. A crash
 * between the write and the enqueue loses nothing: the sweeper finds fan-outs and deliveries that are due.
 */
export interface EventEmitter {
  /** Builds the events of a change and the record of their fan-out (or a ping's one delivery); writes nothing. */
  prepare(origin: EventOrigin, inputs: EventInput[]): Outbox;
  /** After the outbox was written (with the change it belongs to): enqueues its fan-out and deliveries. */
  dispatch(outbox: Outbox): Promise<void>;
  /** prepare, write the outbox on its own, dispatch: for changes that write nothing else. */
  publish(origin: EventOrigin, inputs: EventInput[]): Promise<Outbox>;
}

export interface EventEmitterPorts {
  store: OutboxStore;
  queue: DeliveryQueue;
  clock?: () => number;
}

/** `@self` for the platform's own events, `@accounts` for events inside its connected accounts. */
export const sourceOf = (origin: EventOrigin): string => (origin.scope.accountId === origin.platformId ? '@self' : '@accounts');

/** Whether a subscriber wants an event of this type, payload style and source. */
export function subscribes(subscriber: Subscriber, payload: EventKind, type: string, source: string): boolean {
  if (!subscriber.enabled || subscriber.payload !== payload) return false;
  const typeMatches = subscriber.enabledEvents.includes(type) || (payload === 'snapshot' && subscriber.enabledEvents.includes('*'));
  return typeMatches && subscriber.eventsFrom.includes(source);
}

/** The object an event reports created (its type ends in `.created`, v1 and v2 alike), if any. */
const createdBy = (type: string, relatedObject: RelatedObject | null): string | null => (type.endsWith('.created') ? (relatedObject?.id ?? null) : null);

const newDelivery = (
  kind: EventKind,
  event: { id: string; scope: Scope; type: string },
  destination: DestinationRef,
  now: number,
  explicit = false,
  id = newId('dlv', now),
): Delivery => ({
  id,
  event: { kind, scope: event.scope, id: event.id },
  eventType: event.type,
  destination,
  explicit,
  status: 'pending',
  attempts: [],
  nextAttemptAt: now,
  created: now,
});

/** A delivery sent again by hand: explicit (whatever the destination's status and subscriptions), due now, one attempt. */
export const resendDelivery = (kind: EventKind, event: { id: string; scope: Scope; type: string }, destination: DestinationRef, now: number): Delivery => ({
  ...newDelivery(kind, event, destination, now, true),
  resend: true,
});

/**
 * The deliveries a fan-out makes: one per event and enabled subscriber of its type, payload style and
 * source; and each snapshot event's `pending_webhooks` (its deliveries' count). The audience is read when
 * the fan-out runs, so subscribers the change came before are left out: those created after it, and the
 * one it created (a subscriber is not told of its own creation).
 */
export function deliveriesOf(fanOut: FanOut, audience: Subscriber[], now: number): { deliveries: Delivery[]; pendingWebhooks: Map<string, number> } {
  const deliveries: Delivery[] = [];
  const pendingWebhooks = new Map<string, number>();
  const created = new Set(fanOut.events.map((event) => event.creates));
  const before = audience.filter((subscriber) => subscriber.created <= fanOut.created && !created.has(subscriber.ref.id));
  for (const { ref, type } of fanOut.events) {
    const matching = before.filter((subscriber) => subscribes(subscriber, ref.kind, type, fanOut.source));
    // Ids derived from the fan-out, event and subscriber: a fan-out run again writes the same deliveries.
    const idOf = (subscriber: Subscriber) => derivedId('dlv', fanOut.created, `${fanOut.id}/${ref.id}/${subscriber.ref.kind}/${subscriber.ref.id}`);
    deliveries.push(...matching.map((subscriber) => newDelivery(ref.kind, { ...ref, type }, subscriber.ref, now, false, idOf(subscriber))));
    if (ref.kind === 'snapshot') pendingWebhooks.set(ref.id, matching.length);
  }
  return { deliveries, pendingWebhooks };
}

export function eventEmitter({ store, queue, clock = systemClock }: EventEmitterPorts): EventEmitter {
  function prepare(origin: EventOrigin, inputs: EventInput[]): Outbox {
    const now = clock();
    const outbox = emptyOutbox();
    const fanning: FanOut['events'] = [];
    const base = { scope: origin.scope, platformId: origin.platformId, created: now };

    const thinEvent = (fields: Omit<ThinEvent, 'id' | 'scope' | 'platformId' | 'created' | 'reason'>): ThinEvent => {
      const event: ThinEvent = { id: newId('evt', now), ...base, reason: origin.request, ...fields };
      outbox.thinEvents.push(event);
      return event;
    };

    for (const input of inputs) {
      if (input.kind === 'snapshot') {
        const snapshot: SnapshotEvent = {
          id: newId('evt', now),
          ...base,
          type: input.type,
          apiVersion: origin.apiVersion,
          object: input.object,
          previousAttributes: input.previousAttributes ?? null,
          request: origin.request,
          pendingWebhooks: 0,
          failedWebhooks: 0,
        };
        outbox.snapshotEvents.push(snapshot);
        fanning.push({
          ref: { kind: 'snapshot', scope: snapshot.scope, id: snapshot.id },
          type: snapshot.type,
          creates: createdBy(input.type, input.relatedObject),
        });
        const mirror = thinMirrorOf(input.type);
        if (mirror) {
          const thin = thinEvent({ type: mirror, relatedObject: input.relatedObject, changes: null, data: null, snapshotEventId: snapshot.id });
          fanning.push({ ref: { kind: 'thin', scope: thin.scope, id: thin.id }, type: thin.type, creates: createdBy(input.type, input.relatedObject) });
        }
        continue;
      }
      const thin = thinEvent({
        type: input.type,
        relatedObject: input.relatedObject,
        changes: input.changes ?? null,
        data: input.data ?? null,
        snapshotEventId: null,
      });
      if (input.only) outbox.deliveries.push(newDelivery('thin', thin, input.only, now, true));
      else fanning.push({ ref: { kind: 'thin', scope: thin.scope, id: thin.id }, type: thin.type, creates: createdBy(thin.type, thin.relatedObject) });
    }
    if (fanning.length > 0) {
      const platform = { accountId: origin.platformId, livemode: origin.scope.livemode };
      outbox.fanOut = { id: newId('fan', now), platform, source: sourceOf(origin), events: fanning, created: now };
    }
    const answer = origin.receipt && outbox.snapshotEvents.find((event) => event.type === origin.receipt!.answeredBy);
    if (origin.receipt && answer) {
      outbox.receipt = { ...origin.receipt.draft, event: { scope: answer.scope, id: answer.id } };
      origin.receipt.prepared = { object: answer.object, receipt: outbox.receipt };
    }
    return outbox;
  }

  async function dispatch(outbox: Outbox): Promise<void> {
    const thinEvents = new Map(outbox.thinEvents.map((event) => [event.id, event]));
    const messages: DeliveriesQueueMessage[] = outbox.deliveries.map((delivery) => deliveryMessage(delivery, thinEvents.get(delivery.event.id)));
    if (outbox.fanOut) messages.push(fanOutMessage(outbox.fanOut, outbox.thinEvents));
    if (messages.length === 0) return;
    try {
      await queue.enqueue(messages);
    } catch (error) {
      // The fan-out and deliveries are written; the sweeper enqueues them once they are overdue.
      logger.warn('Could not enqueue a fan-out or deliveries; the sweeper will', { error: error as Error, count: messages.length });
    }
  }

  return {
    prepare,
    dispatch,
    async publish(origin, inputs) {
      const outbox = prepare(origin, inputs);
      await store.commit(outbox);
      await dispatch(outbox);
      return outbox;
    },
  };
}
