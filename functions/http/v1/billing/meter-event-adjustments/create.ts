import { httpHandler, responds } from '#shared/http/handler.ts';
import { createV1MeterEventAdjustmentParams } from '#shared/meter-events/schemas.ts';
import { serializeV1MeterEventAdjustment } from '#shared/meter-events/serializer.ts';
import type { v1MeterEventAdjustmentObject } from '#shared/meter-events/objects.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** POST /v1/billing/meter_event_adjustments: the v2 endpoint's cancellation on the v1 wire, `pending` until applied. */
export const handler = httpHandler(
  {
    summary: 'Create a billing meter event adjustment (v1)',
    description: 'Cancels an event sent within the last 24 hours, through v1 or v2.',
    params: createV1MeterEventAdjustmentParams,
    response: responds<typeof v1MeterEventAdjustmentObject>(),
  },
  async ({ origin, params }) => ({
    body: serializeV1MeterEventAdjustment(await service.adjust(origin, params)),
  }),
);
