import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import type { EventDestination } from '#shared/event-destinations/event-destination.ts';
import { resendDelivery } from '#shared/events/emitter.ts';
import type { EventRepository } from '#shared/events/event-repository.ts';
import { maxDeliveriesPerEvent, type Delivery, type DeliveryStatus, type DestinationKind, type SnapshotEvent, type ThinEvent } from '#shared/events/event.ts';
import { deliveryMessage, type DeliveryQueue } from '#shared/events/ports.ts';
import { logger } from '#shared/core/logger.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { WebhookEndpoint } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import type { DeliveryPage, DeliveryStore } from './delivery-store.ts';

export interface DeliveryAttemptsPorts {
  deliveries: DeliveryStore;
  events: EventRepository;
  /** A v2 event destination of an owner and mode (read from the table: API reads never use a cached copy). */
  destinations: (scope: Scope, id: string) => Promise<EventDestination | undefined>;
  /** A v1 webhook endpoint of an owner and mode. */
  endpoints: (scope: Scope, id: string) => Promise<WebhookEndpoint | undefined>;
  /** The deliveries queue: a resend goes to the delivery worker like every delivery. */
  queue: DeliveryQueue;
  /** Stamps a resend's delivery (its `created`): the stack's clock, as the attempt the worker stamps. @default systemClock */
  clock?: () => number;
}

/** A destination or v1 endpoint, as the routes name it. */
export interface TargetRef {
  kind: DestinationKind;
  id: string;
}

const resourceOf: Record<DestinationKind, string> = { event_destination: 'event destination', webhook_endpoint: 'webhook endpoint' };
const paramOf: Record<DestinationKind, string> = { event_destination: 'event_destination', webhook_endpoint: 'webhook_endpoint' };

/**
 * What was delivered where, and sending an event again: the deliveries of an event, the recent deliveries of a
 * destination or v1 endpoint by status, and a resend of one event to one of them, as a new delivery that the
 * delivery worker sends like any other (signed afresh when it is sent).
 */
export function deliveryAttemptsService({ deliveries, events, destinations, endpoints, queue, clock = systemClock }: DeliveryAttemptsPorts) {
  /** The thin or snapshot event with this id in `scope` (both looked up at once: one read), or a 404. */
  async function eventIn(
    scope: Scope,
    id: string,
    now: number,
  ): Promise<{ thin: ThinEvent; snapshot?: undefined } | { snapshot: SnapshotEvent; thin?: undefined }> {
    const [thin, snapshot] = await Promise.all([events.getThin(scope, id, now), events.getSnapshot(scope, id, now)]);
    if (thin) return { thin };
    if (snapshot) return { snapshot };
    throw new NotFoundError('event', id);
  }

  async function targetIn(scope: Scope, target: TargetRef): Promise<EventDestination | WebhookEndpoint> {
    const found = await (target.kind === 'event_destination' ? destinations(scope, target.id) : endpoints(scope, target.id));
    if (!found) throw new NotFoundError(resourceOf[target.kind], target.id);
    return found;
  }

  return {
    /** Every delivery of an event (at most {@link maxDeliveriesPerEvent}), newest first: one read for the event, one for its deliveries. */
    async listForEvent(scope: Scope, eventId: string): Promise<Delivery[]> {
      const { thin, snapshot } = await eventIn(scope, eventId, clock());
      const found = await deliveries.getMany((thin ?? snapshot).deliveryIds ?? []);
      return found.sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));
    },

    /**
     * A page of a destination's or endpoint's deliveries, pending first, then failed, succeeded and cancelled,
     * each newest first; only `status`'s when given. 404 unless the destination is the caller's.
     */
    async listForTarget(scope: Scope, target: TargetRef, query: { status?: DeliveryStatus; limit: number; after?: string }): Promise<DeliveryPage> {
      const [, page] = await Promise.all([targetIn(scope, target), deliveries.listByDestination({ scope, id: target.id }, query)]);
      return page;
    },

    /**
     * Sends one event again to one of the platform's destinations or v1 endpoints, now, whatever the earlier
     * outcome and the destination's status or subscriptions: a new delivery of one attempt (not retried),
     * written with its link to the event, then queued for the delivery worker. The event is the caller's
     * (its own, or with `Service-Context` a connected account's); the destination the platform's.
     */
    async resend(
      caller: { scope: Scope; platformId: string },
      eventId: string,
      target: TargetRef,
    ): Promise<{ delivery: Delivery; event: ThinEvent | SnapshotEvent }> {
      const now = clock();
      const platform = { accountId: caller.platformId, livemode: caller.scope.livemode };
      const [{ thin, snapshot }, found] = await Promise.all([eventIn(caller.scope, eventId, now), targetIn(platform, target)]);
      const wants = 'secret' in found ? 'snapshot' : found.eventPayload;
      const kind = thin ? 'thin' : 'snapshot';
      if (wants !== kind) {
        const what = 'secret' in found ? 'A v1 webhook endpoint receives' : `Event destination ${found.id} receives`;
        throw new InvalidRequestError(`${what} ${wants} events only; ${eventId} is a ${kind} event.`, 'parameter_invalid', paramOf[target.kind]);
      }
      const event = (thin ?? snapshot)!;
      const delivery = resendDelivery(kind, event, { kind: target.kind, scope: found.scope, id: found.id, version: found.version }, now);
      const written = await deliveries.createResend(delivery);
      if (written === 'event_missing') throw new NotFoundError('event', eventId);
      if (written === 'too_many') {
        throw new InvalidRequestError(
          `Event ${eventId} has ${maxDeliveriesPerEvent} deliveries already, the most one event may have; it cannot be sent again.`,
          'event_delivery_limit_reached',
        );
      }
      try {
        // The thin event rides along as an emitted one does, without the links read back with it.
        await queue.enqueue([deliveryMessage(delivery, thin && { ...thin, deliveryIds: undefined })]);
      } catch (error) {
        // The delivery is written and due: the sweeper enqueues it.
        logger.warn('Could not enqueue a resend; the sweeper will', { error: error as Error, deliveryId: delivery.id });
      }
      return { delivery, event };
    },
  };
}
