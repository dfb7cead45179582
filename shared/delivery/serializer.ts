import type * as z from 'zod';
import type { Delivery, DeliveryStatus } from '#shared/events/event.ts';
import { isoTimestamp } from '#shared/wire/timestamps.ts';
import type { deliveryObject } from './objects.ts';

/** A delivery's status as the API names it (the reference's spellings: `succeeded`, `canceled`). */
export const deliveryStatusNames = { pending: 'pending', delivered: 'succeeded', failed: 'failed', cancelled: 'canceled' } as const satisfies Record<
  DeliveryStatus,
  string
>;

/** The stored status an API status name stands for. */
export const deliveryStatusOf = (name: (typeof deliveryStatusNames)[DeliveryStatus]): DeliveryStatus =>
  (Object.keys(deliveryStatusNames) as DeliveryStatus[]).find((status) => deliveryStatusNames[status] === name)!;

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
