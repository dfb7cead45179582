import { systemClock } from '#shared/core/clock.ts';
import type { EventDestination, EventDestinationRepository } from '#shared/event-destinations/event-destination.ts';
import type { EventRepository } from '#shared/events/event-repository.ts';
import {
  eventRetentionMillis,
  type AttemptRecord,
  type CancelReason,
  type Delivery,
  type DestinationRef,
  type SnapshotEvent,
  type ThinEvent,
} from '#shared/events/event.ts';
import { maxSweepsWithoutAttempt } from '#shared/events/parking.ts';
import { deliveryMessage, type DeliveryMessage, type DeliveryQueue } from '#shared/events/ports.ts';
import { serializeSnapshotEvent, thinNotification } from '#shared/events/serializers.ts';
import { isoTimestamp } from '#shared/wire/timestamps.ts';
import { logger } from '#shared/core/logger.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { SecretBox, SecretContext } from '#shared/secrets/secret-box.ts';
import type { WebhookEndpoint } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import type { DeliveryAttempt } from './attempt.ts';
import type { DeliveryStore } from './delivery-store.ts';
import type { EventBridgePublisher } from './eventbridge-publisher.ts';
import type { EventGridSender } from './event-grid-sender.ts';
import type { WebhookSender } from './webhook-sender.ts';

export interface DeliveryServicePorts {
  deliveries: DeliveryStore;
  events: EventRepository;
  /** Where a cloud target's answer about itself is recorded (first success activates, a missing target disables). */
  destinations: EventDestinationRepository;
  /**
   * The destination or v1 endpoint a delivery goes to. It may be a copy read a moment ago, but never one
   * older than `ref.version`, the version the fan-out saw (when the record has one).
   */
  targets: (ref: DestinationRef) => Promise<EventDestination | WebhookEndpoint | undefined>;
  queue: DeliveryQueue;
  webhooks: WebhookSender;
  /** Opens the sealed signing secret a webhook is signed with. */
  secrets: Pick<SecretBox, 'open'>;
  /** Absent when the deployment has no event bus configured. */
  eventBridge?: EventBridgePublisher;
  /** Absent when no cloudtwo Event Grid endpoint is configured. */
  eventGrid?: EventGridSender;
  /** Seconds before each retry, by mode; the length is the number of retries. */
  retrySchedule: { test: number[]; live: number[] };
  /** How late a pending delivery must be before the sweeper re-enqueues it. */
  sweepGraceMillis: number;
  /** Told how each handled delivery ended (the deployed worker counts them as CloudWatch metrics). */
  outcomes?: { count(outcome: DeliveryOutcome): void };
  clock?: () => number;
  random?: () => number;
}

/** How handling a delivery ended: sent, to be retried, given up, cancelled (its event or target is gone), parked. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'cancelled' | 'parked';

/** The CloudWatch metric each delivery outcome counts in (infra/monitoring.ts graphs them). */
export const deliveryOutcomeMetrics = {
  delivered: 'DeliveriesDelivered',
  retrying: 'DeliveryRetriesScheduled',
  failed: 'DeliveriesFailed',
  cancelled: 'DeliveriesCancelled',
  parked: 'DeliveriesParked',
} as const satisfies Record<DeliveryOutcome, string>;

const maxQueueDelaySeconds = 900;

const sameScope = (a: { accountId?: string; livemode: boolean }, b: { accountId?: string; livemode: boolean }) =>
  a.accountId === b.accountId && a.livemode === b.livemode;

/** Whether two references (of events, targets, or the records themselves) name the same thing in the same account and mode. */
const sameRef = (a: { kind?: string; id: string; scope: Scope }, b: { kind?: string; id: string; scope: Scope }) =>
  a.id === b.id && (a.kind === undefined || b.kind === undefined || a.kind === b.kind) && sameScope(a.scope, b.scope);

type Target =
  | { kind: 'webhook'; url: string; secret: { stored: string; context: SecretContext }; body: string; livemode: boolean }
  | { kind: 'cloudone'; destination: EventDestination; source: string; detailType: string; detail: string }
  | { kind: 'cloudtwo'; destination: EventDestination; topicName: string; body: unknown; event: ThinEvent | SnapshotEvent };

/**
 * Delivers events, at least once: the worker sends one delivery per message and records every attempt;
 * failures are retried with exponential backoff and jitter; the sweeper re-enqueues what is overdue.
 */
export function deliveryService(ports: DeliveryServicePorts) {
  const { deliveries, events, destinations, targets, queue, webhooks, secrets, clock = systemClock, random = Math.random } = ports;
  /** A target's stored signing secret, with the context it was sealed with (its owner, mode and id). */
  const secretOf = (found: { id: string; scope: Scope }, stored: string) => ({
    stored,
    context: { accountId: found.scope.accountId, livemode: found.scope.livemode, objectId: found.id },
  });
  const count = (outcome: DeliveryOutcome) => ports.outcomes?.count(outcome);

  /** The event a message names: the thin event it carries while retained, else the stored one. */
  function eventOf(message: DeliveryMessage, now: number) {
    const { event, thinEvent } = message;
    if (thinEvent) return thinEvent.created + eventRetentionMillis > now ? thinEvent : undefined;
    return event.kind === 'thin' ? events.getThin(event.scope, event.id, now) : events.getSnapshot(event.scope, event.id, now);
  }

  /** Loads what a delivery needs, in parallel: the target, and the delivery and the event only when the message does not carry them. */
  async function load(message: DeliveryMessage, now: number) {
    const [delivery, found, target] = await Promise.all([
      message.delivery ?? deliveries.get(message.deliveryId),
      eventOf(message, now),
      targets(message.destination),
    ]);
    return { delivery, event: found, target };
  }
  type Loaded = Awaited<ReturnType<typeof load>>;

  /**
   * Why a message's delivery, event and target do not belong together, if they do not. The service never
   * writes such a message (the seal keeps out everyone else's): the target is the event's platform's, in the
   * event's mode, a v1 endpoint gets snapshot events only, and the message names what its delivery names.
   */
  function mismatchOf(message: DeliveryMessage, delivery: Delivery, event: ThinEvent | SnapshotEvent | undefined, found: Loaded['target']): string | undefined {
    if (delivery.id !== message.deliveryId || !sameRef(delivery.event, message.event) || !sameRef(delivery.destination, message.destination)) {
      return 'the message names another delivery, event or target than its delivery';
    }
    if (event && !sameRef(event, delivery.event)) return 'the event is not the one its delivery names';
    const platform = { accountId: event?.platformId, livemode: delivery.event.scope.livemode };
    if (event && !sameScope(delivery.destination.scope, platform)) return "the target is not in the event's platform and mode";
    if (found && !sameRef(found, delivery.destination)) return 'the target is not the one its delivery names';
    if (found && 'secret' in found && delivery.event.kind !== 'snapshot') return 'a v1 webhook endpoint receives snapshot events only';
    return undefined;
  }

  /** What to send where, or why nothing can be sent. */
  function targetOf(delivery: Delivery, event: ThinEvent | SnapshotEvent, found: Loaded['target']): Target | CancelReason {
    if (!found) return 'destination_deleted';
    if (found.status !== 'enabled' && !delivery.explicit) return 'destination_disabled';
    if ('secret' in found) {
      const body = JSON.stringify(serializeSnapshotEvent(event as SnapshotEvent, found.apiVersion ?? undefined));
      return { kind: 'webhook', url: found.url, secret: secretOf(found, found.secret), body, livemode: found.scope.livemode };
    }
    const payload =
      delivery.event.kind === 'thin'
        ? thinNotification(event as ThinEvent)
        : serializeSnapshotEvent(event as SnapshotEvent, found.snapshotApiVersion ?? undefined);
    if (found.webhookEndpoint) {
      return {
        kind: 'webhook',
        url: found.webhookEndpoint.url,
        secret: secretOf(found, found.webhookEndpoint.signingSecret),
        body: JSON.stringify(payload),
        livemode: found.scope.livemode,
      };
    }
    if (found.cloudoneEventbridge) {
      return {
        kind: 'cloudone',
        destination: found,
        source: found.cloudoneEventbridge.eventSourceName,
        detailType: event.type,
        detail: JSON.stringify(payload),
      };
    }
    if (found.cloudtwoEventGrid) return { kind: 'cloudtwo', destination: found, topicName: found.cloudtwoEventGrid.partnerTopicName, body: payload, event };
    return 'destination_has_no_target';
  }

  /**
   * Records what a cloud target's answer says about it: a success makes the source or topic active (the first
   * one, and again after it was `deleted`, once the user has restored it and the destination delivers again);
   * a missing target marks it deleted and disables the destination.
   */
  async function noteTargetState(destination: EventDestination, attempt: DeliveryAttempt): Promise<void> {
    const cloudone = destination.cloudoneEventbridge;
    const cloudtwo = destination.cloudtwoEventGrid;
    const activate =
      attempt.outcome === 'delivered' &&
      ((cloudone !== null && cloudone.eventSourceStatus !== 'active') || (cloudtwo !== null && cloudtwo.partnerTopicStatus !== 'activated'));
    if (!activate && !attempt.missingTarget) return;
    await withOptimisticRetries(async () => {
      const current = await destinations.get(destination.scope, destination.id);
      if (!current) return true;
      const next: EventDestination = { ...current, updated: clock(), version: current.version + 1 };
      if (current.cloudoneEventbridge) {
        next.cloudoneEventbridge = { ...current.cloudoneEventbridge, eventSourceStatus: attempt.missingTarget ? 'deleted' : 'active' };
        if (attempt.missingTarget) Object.assign(next, { status: 'disabled', disabledReason: 'no_cloudone_event_source_exists' });
      }
      if (current.cloudtwoEventGrid) {
        next.cloudtwoEventGrid = { ...current.cloudtwoEventGrid, partnerTopicStatus: attempt.missingTarget ? 'deleted' : 'activated' };
        if (attempt.missingTarget) Object.assign(next, { status: 'disabled', disabledReason: 'no_cloudtwo_partner_topic_exists' });
      }
      return (await destinations.replace(next)) ? true : undefined;
    });
  }

  async function send(target: Target): Promise<DeliveryAttempt> {
    switch (target.kind) {
      case 'webhook':
        return webhooks.send({
          url: target.url,
          body: target.body,
          secret: await secrets.open(target.secret.stored, target.secret.context),
          livemode: target.livemode,
        });
      case 'cloudone':
        if (!ports.eventBridge) return unavailable('no event bus is configured for cloudone destinations');
        return ports.eventBridge.put({ source: target.source, detailType: target.detailType, detail: target.detail });
      case 'cloudtwo': {
        if (!ports.eventGrid) return unavailable('no cloudtwo Event Grid endpoint is configured');
        const { event } = target;
        return ports.eventGrid.send({
          topicName: target.topicName,
          event: {
            specversion: '1.0',
            id: event.id,
            source: `/service/accounts/${event.scope.accountId}`,
            type: event.type,
            time: isoTimestamp(event.created),
            datacontenttype: 'application/json',
            data: target.body,
          },
        });
      }
    }
  }

  const unavailable = (error: string): DeliveryAttempt => ({ outcome: 'failed', status: null, durationMs: 0, error, missingTarget: false });

  /** Seconds until the next retry after `failures` failed attempts, with ±20 % jitter; undefined when done. */
  function retryDelay(delivery: Delivery, failures: number): number | undefined {
    const schedule = delivery.event.scope.livemode ? ports.retrySchedule.live : ports.retrySchedule.test;
    const base = schedule[failures - 1];
    return base === undefined ? undefined : base * (0.8 + random() * 0.4);
  }

  /**
   * A retry later than SQS can delay has no message: the sweeper is its only trigger, so it is due on time,
   * not after the grace that covers a message on its way.
   */
  function awaitsSweeper(delivery: Delivery): boolean {
    const last = delivery.attempts.at(-1);
    return (delivery.sweeps ?? 0) === 0 && last !== undefined && delivery.nextAttemptAt! - last.at > maxQueueDelaySeconds * 1000;
  }

  async function park(delivery: Delivery, now: number): Promise<void> {
    const error = `parked after ${delivery.sweeps} sweeps without an attempt: the delivery worker fails on this delivery`;
    const attempt: AttemptRecord = { at: now, outcome: 'failed', status: null, durationMs: 0, error };
    const settleSnapshotEvent = { failed: true };
    if (await deliveries.update(delivery, { status: 'failed', nextAttemptAt: null, attempt, settleSnapshotEvent })) {
      logger.error('Parked a delivery', { parked: true, work: 'delivery', deliveryId: delivery.id, sweeps: delivery.sweeps });
      count('parked');
    }
  }

  return {
    /** Handles one queue message. Throws only when storage fails (the message is then retried by the queue). */
    async deliver(message: DeliveryMessage): Promise<void> {
      const now = clock();
      const { delivery, event, target: found } = await load(message, now);
      if (delivery?.status !== 'pending') return;
      const mismatch = mismatchOf(message, delivery, event, found);
      if (mismatch) {
        // Refused, not retried: the record is left as it is (the sweeper re-sends a genuine one) and nothing is posted.
        logger.error('Refused a delivery message that does not match its delivery', { refusedMessage: true, deliveryId: message.deliveryId, mismatch });
        return;
      }
      if (delivery.nextAttemptAt !== null && delivery.nextAttemptAt > now + 1000) {
        await queue.enqueue([message], (delivery.nextAttemptAt - now) / 1000);
        return;
      }
      const settle = { failed: false };
      const target = event ? targetOf(delivery, event, found) : 'event_expired';
      if (typeof target === 'string') {
        await deliveries.update(delivery, { status: 'cancelled', nextAttemptAt: null, attempt: null, settleSnapshotEvent: settle, cancelReason: target });
        count('cancelled');
        return;
      }
      const attempt = await send(target);
      const record: AttemptRecord = {
        at: now,
        outcome: attempt.outcome,
        status: attempt.status,
        durationMs: attempt.durationMs,
        error: attempt.error,
        responseExcerpt: attempt.responseExcerpt || null,
      };
      if (target.kind !== 'webhook') await noteTargetState(target.destination, attempt);

      if (attempt.outcome === 'delivered') {
        await deliveries.update(delivery, { status: 'delivered', nextAttemptAt: null, attempt: record, settleSnapshotEvent: settle });
        count('delivered');
        return;
      }
      // A resend is the one attempt someone asked for: it is not retried.
      const delay = attempt.missingTarget || delivery.resend ? undefined : retryDelay(delivery, delivery.attempts.length + 1);
      if (delay === undefined) {
        logger.info('Delivery gave up', { deliveryId: delivery.id, error: attempt.error, attempts: delivery.attempts.length + 1 });
        await deliveries.update(delivery, { status: 'failed', nextAttemptAt: null, attempt: record, settleSnapshotEvent: { failed: true } });
        count('failed');
        return;
      }
      const nextAttemptAt = now + Math.round(delay * 1000);
      const recorded = await deliveries.update(delivery, { status: 'pending', nextAttemptAt, attempt: record, settleSnapshotEvent: null });
      count('retrying');
      // Longer waits than SQS can delay are left to the sweeper, which finds the delivery once it is due.
      if (recorded && delay <= maxQueueDelaySeconds) {
        await queue.enqueue([deliveryMessage({ ...delivery, attempts: [...delivery.attempts, record], nextAttemptAt }, message.thinEvent)], delay);
      }
    },

    /**
     * Re-enqueues pending deliveries overdue by more than the grace period (lost messages), and those due
     * after a backoff longer than SQS delays.
     * One the worker keeps failing on is parked instead: it fails with the reason as its last attempt, so
     * its event settles and it can be sent again by hand, and an ERROR line with `parked: true` raises the
     * parked-work alarm (infra/monitoring.ts).
     */
    async sweep(): Promise<number> {
      const now = clock();
      const overdue = (await deliveries.overdue(now, 100)).filter(
        (delivery) => delivery.nextAttemptAt! <= now - ports.sweepGraceMillis || awaitsSweeper(delivery),
      );
      const claimed: Delivery[] = [];
      for (const delivery of overdue) {
        if ((delivery.sweeps ?? 0) >= maxSweepsWithoutAttempt) {
          await park(delivery, now);
        } else if (await deliveries.reschedule(delivery, now)) {
          claimed.push(delivery);
        }
      }
      await queue.enqueue(claimed.map((delivery) => deliveryMessage({ ...delivery, nextAttemptAt: now })));
      return claimed.length;
    },
  };
}
