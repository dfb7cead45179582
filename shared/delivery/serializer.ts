import * as z from 'zod';
import type { Delivery, DeliveryStatus } from '#shared/events/event.ts';
import { isoTime } from '#shared/http/objects.ts';
import { isoTimestamp } from '#shared/http/timestamps.ts';

/** A delivery's status as the API names it (the reference's spellings: `succeeded`, `canceled`). */
export const deliveryStatusNames = { pending: 'pending', delivered: 'succeeded', failed: 'failed', cancelled: 'canceled' } as const satisfies Record<
  DeliveryStatus,
  string
>;

/** The stored status an API status name stands for. */
export const deliveryStatusOf = (name: (typeof deliveryStatusNames)[DeliveryStatus]): DeliveryStatus =>
  (Object.keys(deliveryStatusNames) as DeliveryStatus[]).find((status) => deliveryStatusNames[status] === name)!;

/** One delivery of one event to one destination or v1 endpoint, with every attempt (this service's own object). */
export const deliveryObject = z
  .object({
    id: z.string(),
    object: z.literal('event_delivery'),
    created: isoTime,
    livemode: z.boolean(),
    event: z.object({ id: z.string(), type: z.string().nullable(), payload: z.enum(['thin', 'snapshot']) }),
    destination: z.object({ type: z.enum(['event_destination', 'webhook_endpoint']), id: z.string() }),
    reason: z.enum(['resend', 'ping', 'subscribed']),
    status: z.enum(['pending', 'succeeded', 'failed', 'canceled']),
    canceled_reason: z.enum(['destination_deleted', 'destination_disabled', 'destination_has_no_target', 'event_expired']).nullable(),
    next_attempt_at: isoTime.nullable(),
    attempts: z.array(
      z.object({
        attempted_at: isoTime,
        outcome: z.enum(['succeeded', 'failed']),
        http_status: z.int().nullable(),
        duration_ms: z.number().nullable(),
        error: z.string().nullable(),
        response_body_excerpt: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'EventDelivery', description: "This service's addition: a delivery of an event and its attempts." });

export function serializeDelivery(delivery: Delivery): z.input<typeof deliveryObject> {
  return {
    id: delivery.id,
    object: 'event_delivery' as const,
    created: isoTimestamp(delivery.created),
    livemode: delivery.event.scope.livemode,
    event: { id: delivery.event.id, type: delivery.eventType ?? null, payload: delivery.event.kind },
    destination: { type: delivery.destination.kind, id: delivery.destination.id },
    reason: delivery.resend ? ('resend' as const) : delivery.explicit ? ('ping' as const) : ('subscribed' as const),
    status: deliveryStatusNames[delivery.status],
    canceled_reason: delivery.cancelReason ?? null,
    next_attempt_at: delivery.status === 'pending' && delivery.nextAttemptAt !== null ? isoTimestamp(delivery.nextAttemptAt) : null,
    attempts: delivery.attempts.map((attempt) => ({
      attempted_at: isoTimestamp(attempt.at),
      outcome: attempt.outcome === 'delivered' ? ('succeeded' as const) : ('failed' as const),
      http_status: attempt.status,
      duration_ms: attempt.durationMs,
      error: attempt.error,
      response_body_excerpt: attempt.responseExcerpt ?? null,
    })),
  };
}
