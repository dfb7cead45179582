import { httpHandler, responds } from '#shared/http/handler.ts';
import { createMeterEventAdjustmentParams } from '#shared/meter-events/schemas.ts';
import { serializeMeterEventAdjustment } from '#shared/meter-events/serializer.ts';
import type { meterEventAdjustmentObject } from '#shared/meter-events/objects.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** POST /v2/billing/meter_event_adjustments: a cancellation, `pending` until the worker applies it. */
export const handler = httpHandler(
  {
    summary: 'Create a billing meter event adjustment',
    description: 'A cancellation of an event, `pending` until it is applied.',
    params: createMeterEventAdjustmentParams,
    response: responds<typeof meterEventAdjustmentObject>(),
  },
  async ({ origin, params }) => ({
    body: serializeMeterEventAdjustment(await service.adjust(origin, params)),
  }),
);
