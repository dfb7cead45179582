import { listEventDeliveriesParams } from '#shared/delivery/schemas.ts';
import { serializeDelivery } from '#shared/delivery/serializer.ts';
import type { deliveryObject } from '#shared/delivery/objects.ts';
import { wireDeliveryAttemptsService } from '#shared/delivery/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v2List, type V2ListObject } from '#shared/wire/pagination.ts';

const service = wireDeliveryAttemptsService();

/** GET /v2/service/events/{id}/deliveries (this service's addition): every delivery of a thin or snapshot event, newest first, on one page. */
export const handler = httpHandler(
  {
    summary: "List an event's deliveries",
    description: "This service's addition: every delivery of a thin or snapshot event, newest first, on one page.",
    params: listEventDeliveriesParams,
    response: responds<V2ListObject<typeof deliveryObject>>(),
  },
  async ({ caller, pathParameters }) => ({
    body: v2List((await service.listForEvent(caller.scope, pathParameters.id!)).map(serializeDelivery), null),
  }),
);
