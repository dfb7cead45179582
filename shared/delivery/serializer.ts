import * as z from 'zod';
import type { Delivery, DeliveryStatus } from '#shared/events/event.ts';
import { isoTime } from '#shared/wire/objects.ts';
import { isoTimestamp } from '#shared/wire/timestamps.ts';

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
    id: z.string().describe('Unique identifier for the delivery.'),
    object: z.literal('event_delivery').describe("String representing the object's type: `event_delivery`."),
    created: isoTime.describe('When the delivery was created.'),
    livemode: z.boolean().describe('Whether the delivery is of a live-mode event.'),
    event: z
      .object({
        id: z.string().describe("The event's id."),
        type: z.string().nullable().describe("The event's type."),
        payload: z.enum(['thin', 'snapshot']).describe('How the event is delivered: a v1 event (`snapshot`) or a thin event notification (`thin`).'),
      })
      .describe('The event delivered.'),
    destination: z
      .object({
        type: z.enum(['event_destination', 'webhook_endpoint']).describe('An event destination or a v1 webhook endpoint.'),
        id: z.string().describe("The event destination's or webhook endpoint's id."),
      })
      .describe('Where the event is delivered.'),
    reason: z
      .enum(['resend', 'ping', 'subscribed'])
      .describe('Why the event is delivered: the destination is `subscribed` to its type, it was `resend`, or it is a `ping`.'),
    status: z.enum(['pending', 'succeeded', 'failed', 'canceled']).describe('Where the delivery stands.'),
    canceled_reason: z
      .enum(['destination_deleted', 'destination_disabled', 'destination_has_no_target', 'event_expired'])
      .nullable()
      .describe('Why the delivery was canceled, when it was.'),
    next_attempt_at: isoTime.nullable().describe('When the next attempt is due, while the delivery is pending.'),
    attempts: z
      .array(
        z.object({
          attempted_at: isoTime.describe('When the attempt was made.'),
          outcome: z.enum(['succeeded', 'failed']).describe('How the attempt ended.'),
          http_status: z.int().nullable().describe('The HTTP status the endpoint answered, if it answered.'),
          duration_ms: z.number().nullable().describe('How long the attempt took, in milliseconds.'),
          error: z.string().nullable().describe('What went wrong, when the attempt failed without an answer.'),
          response_body_excerpt: z.string().nullable().describe("The first bytes of the endpoint's answer."),
        }),
      )
      .describe('Every attempt so far, oldest first.'),
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
