import { newId } from '#shared/ids.ts';
import { logger } from '#shared/logger.ts';
import type { Scope } from '#shared/platform/types.ts';
import { thinMirrorOf } from './catalogue.ts';
import {
  emptyOutbox,
  type Delivery,
  type DestinationRef,
  type EventInput,
  type EventKind,
  type EventOrigin,
  type Outbox,
  type SnapshotEvent,
  type Subscriber,
  type ThinEvent,
} from './event.ts';
import { deliveryMessage, type DeliveryQueue, type OutboxStore, type SubscriberDirectory } from './ports.ts';

/**
 * The one port every capability calls when state changes. A change is written together with its outbox
 * (its events and one delivery per matching destination), then the deliveries go on the queue. A crash
 * between the write and the enqueue loses nothing: the sweeper finds deliveries that are due.
 */
export interface EventEmitter {
  /** The destinations and endpoints the origin's events may fan out to (one read, reusable across retries). */
  audienceOf(origin: EventOrigin): Promise<Subscriber[]>;
  /**
   * Builds the events of a change and the deliveries they fan out to; writes nothing. Reads the audience
   * unless given one.
   */
  prepare(origin: EventOrigin, inputs: EventInput[], audience?: Subscriber[]): Promise<Outbox>;
  /** After the outbox was written (with the change it belongs to): enqueues its deliveries. */
  dispatch(outbox: Outbox): Promise<void>;
  /** prepare, write the outbox on its own, dispatch: for changes that write nothing else. */
  publish(origin: EventOrigin, inputs: EventInput[]): Promise<Outbox>;
}

export interface EventEmitterPorts {
  subscribers: SubscriberDirectory;
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

export function eventEmitter({ subscribers, store, queue, clock = Date.now }: EventEmitterPorts): EventEmitter {
  const delivery = (kind: EventKind, event: { id: string; scope: Scope }, destination: DestinationRef, now: number, explicit = false): Delivery => ({
    id: newId('dlv', now),
    event: { kind, scope: event.scope, id: event.id },
    destination,
    explicit,
    status: 'pending',
    attempts: [],
    nextAttemptAt: now,
    created: now,
  });

  const audienceOf = (origin: EventOrigin): Promise<Subscriber[]> =>
    subscribers.subscribersOf({ accountId: origin.platformId, livemode: origin.scope.livemode });

  async function prepare(origin: EventOrigin, inputs: EventInput[], given?: Subscriber[]): Promise<Outbox> {
    const now = clock();
    const outbox = emptyOutbox();
    const fansOut = inputs.some((input) => input.kind === 'snapshot' || !input.only);
    const audience = given ?? (fansOut ? await audienceOf(origin) : []);
    const source = sourceOf(origin);
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
        for (const subscriber of audience) {
          if (subscribes(subscriber, 'snapshot', snapshot.type, source)) outbox.deliveries.push(delivery('snapshot', snapshot, subscriber.ref, now));
        }
        snapshot.pendingWebhooks = outbox.deliveries.filter((item) => item.event.id === snapshot.id).length;
        const mirror = thinMirrorOf(input.type);
        if (mirror) {
          const thin = thinEvent({ type: mirror, relatedObject: input.relatedObject, changes: null, data: null, snapshotEventId: snapshot.id });
          for (const subscriber of audience) {
            if (subscribes(subscriber, 'thin', mirror, source)) outbox.deliveries.push(delivery('thin', thin, subscriber.ref, now));
          }
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
      if (input.only) {
        outbox.deliveries.push(delivery('thin', thin, input.only, now, true));
        continue;
      }
      for (const subscriber of audience) {
        if (subscribes(subscriber, 'thin', thin.type, source)) outbox.deliveries.push(delivery('thin', thin, subscriber.ref, now));
      }
    }
    return outbox;
  }

  async function dispatch(outbox: Outbox): Promise<void> {
    if (outbox.deliveries.length === 0) return;
    try {
      const thinEvents = new Map(outbox.thinEvents.map((event) => [event.id, event]));
      await queue.enqueue(outbox.deliveries.map((delivery) => deliveryMessage(delivery, thinEvents.get(delivery.event.id))));
    } catch (error) {
      // The deliveries are written; the sweeper enqueues them once they are overdue.
      logger.warn('Could not enqueue deliveries; the sweeper will', { error: error as Error, count: outbox.deliveries.length });
    }
  }

  return {
    audienceOf,
    prepare,
    dispatch,
    async publish(origin, inputs) {
      const outbox = await prepare(origin, inputs);
      await store.commit(outbox);
      await dispatch(outbox);
      return outbox;
    },
  };
}
