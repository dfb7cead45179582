import * as z from 'zod';
import { isoTime } from '#shared/wire/objects.ts';

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
