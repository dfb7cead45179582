import { httpHandler } from '#shared/http/handler.ts';
import { createV1MeterEventParams } from '#shared/meter-events/schemas.ts';
import { serializeV1MeterEvent, v1MeterEventObject } from '#shared/meter-events/serializer.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** POST /v1/billing/meter_events: the v2 endpoint's event (checks, counting, identifiers) on the v1 wire. */
export const handler = httpHandler(
  { params: createV1MeterEventParams, response: v1MeterEventObject, rateLimit: 'meter_events' },
  async ({ origin, params }) => ({
    body: serializeV1MeterEvent(await service.create(origin, params)),
  }),
);
