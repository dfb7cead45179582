import { resendEventParams } from '#shared/delivery/schemas.ts';
import { serializeDelivery } from '#shared/delivery/serializer.ts';
import type { deliveryObject } from '#shared/delivery/objects.ts';
import { wireDeliveryAttemptsService } from '#shared/delivery/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireDeliveryAttemptsService();

/** POST /v2/service/events/{id}/resend (this service's addition): a new delivery of the event to one destination or v1 endpoint, sent now. */
export const handler = httpHandler(
  {
    summary: 'Resend an event',
    description: "This service's addition: a new delivery of the event to one event destination or v1 webhook endpoint, sent now.",
    params: resendEventParams,
    response: responds<typeof deliveryObject>(),
  },
  async ({ caller, params, pathParameters }) => {
    const target = params.event_destination
      ? { kind: 'event_destination' as const, id: params.event_destination }
      : { kind: 'webhook_endpoint' as const, id: params.webhook_endpoint! };
    const { delivery } = await service.resend(caller, pathParameters.id!, target);
    return { body: serializeDelivery(delivery) };
  },
);
