import { httpHandler, responds } from '#shared/http/handler.ts';
import { createMeterEventParams } from '#shared/meter-events/schemas.ts';
import { serializeMeterEvent } from '#shared/meter-events/serializer.ts';
import type { meterEventObject } from '#shared/meter-events/objects.ts';
import { replayedFrom } from '#shared/meter-events/service.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** POST /v2/billing/meter_events: validated and stored now, counted by the meter-events worker. */
export const handler = httpHandler(
  {
    summary: 'Create a billing meter event',
    description: 'Checked against its meter and counted before the answer.',
    params: createMeterEventParams,
    response: responds<typeof meterEventObject>(),
    rateLimit: 'meter_events',
    idempotency: 'operation',
  },
  async ({ id, origin, params, idempotency }) => {
    const event = await service.create(origin, params, idempotency);
    return { body: serializeMeterEvent(event), replayedFrom: replayedFrom(event, id) };
  },
);
