import * as z from 'zod';
import { booleanParam, expandParam, idParam, integerParam } from '#shared/wire/params.ts';
import { deliveryStatusNames } from './serializer.ts';

/** `GET /v2/service/event_destinations/:id/deliveries` and `…/webhook_endpoints/:id/deliveries`. */
export const listTargetDeliveriesParams = z.strictObject({
  limit: integerParam(1, 100).optional().describe('How many deliveries a page holds, 1 to 100 (default 20).'),
  status: z.enum(Object.values(deliveryStatusNames)).optional().describe('Only deliveries in this status.'),
});

/** `GET /v2/service/events/:id/deliveries`: every delivery of the event, on one page. */
export const listEventDeliveriesParams = z.strictObject({});

/** `POST /v2/service/events/:id/resend`: exactly one destination or v1 endpoint. */
export const resendEventParams = z
  .strictObject({
    event_destination: idParam().optional().describe('The event destination to deliver the event to (`ed_…`); give this or `webhook_endpoint`.'),
    webhook_endpoint: idParam().optional().describe('The v1 webhook endpoint to deliver the event to (`we_…`); give this or `event_destination`.'),
  })
  .refine((params) => (params.event_destination === undefined) !== (params.webhook_endpoint === undefined), {
    message: 'Name exactly one of event_destination and webhook_endpoint.',
    path: ['event_destination'],
  });

/**
 * `POST /v1/events/:id/retry`, as the reference's command-line tool sends it (`stripe events resend evt_…
 * --webhook-endpoint we_…`). Without an endpoint the tool asks for its own listener (`for_stripecli=true`),
 * which this service does not have.
 */
export const retryEventParams = z.strictObject({
  webhook_endpoint: idParam().optional().describe('The webhook endpoint to send the event to again (`we_…`).'),
  for_stripecli: booleanParam()
    .optional()
    .describe("Sent by the reference's command-line tool to ask for its own listener, which this service does not have: name `webhook_endpoint` instead."),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});
