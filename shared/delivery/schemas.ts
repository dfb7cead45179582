import * as z from 'zod';
import { booleanParam, expandParam, idParam, integerParam } from '#shared/http/params.ts';
import { deliveryStatusNames } from './serializer.ts';

/** `GET /v2/service/event_destinations/:id/deliveries` and `…/webhook_endpoints/:id/deliveries`. */
export const listTargetDeliveriesParams = z.strictObject({
  limit: integerParam(1, 100).optional(),
  status: z.enum(Object.values(deliveryStatusNames)).optional(),
});

/** `GET /v2/service/events/:id/deliveries`: every delivery of the event, on one page. */
export const listEventDeliveriesParams = z.strictObject({});

/** `POST /v2/service/events/:id/resend`: exactly one destination or v1 endpoint. */
export const resendEventParams = z
  .strictObject({ event_destination: idParam().optional(), webhook_endpoint: idParam().optional() })
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
  webhook_endpoint: idParam().optional(),
  for_stripecli: booleanParam().optional(),
  expand: expandParam().optional(),
});
