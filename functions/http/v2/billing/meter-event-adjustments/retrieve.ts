import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveMeterEventAdjustmentParams } from '#shared/meter-events/schemas.ts';
import { serializeMeterEventAdjustment } from '#shared/meter-events/serializer.ts';
import type { meterEventAdjustmentObject } from '#shared/meter-events/objects.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** GET /v2/billing/meter_event_adjustments/:id (this service's addition): shows when a cancellation is complete. */
export const handler = httpHandler(
  {
    summary: 'Retrieve a billing meter event adjustment',
    description: "This service's addition: shows when a cancellation is complete.",
    params: retrieveMeterEventAdjustmentParams,
    response: responds<typeof meterEventAdjustmentObject>(),
  },
  async ({ caller, pathParameters }) => ({
    body: serializeMeterEventAdjustment(await service.retrieveAdjustment(caller.scope, pathParameters.id!)),
  }),
);
