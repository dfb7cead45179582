import { httpHandler, responds } from '#shared/http/handler.ts';
import { createV1MeterEventParams } from '#shared/meter-events/schemas.ts';
import { serializeV1MeterEvent } from '#shared/meter-events/serializer.ts';
import type { v1MeterEventObject } from '#shared/meter-events/objects.ts';
import { replayedFrom } from '#shared/meter-events/service.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** POST /v1/billing/meter_events: the v2 endpoint's event (checks, counting, identifiers) on the v1 wire. */
export const handler = httpHandler(
  {
    summary: 'Create a billing meter event (v1)',
    description: "The v2 endpoint's event on the v1 wire: the same checks, counting and identifiers (one namespace per account and mode).",
    params: createV1MeterEventParams,
    response: responds<typeof v1MeterEventObject>(),
    rateLimit: 'meter_events',
    idempotency: 'operation',
  },
  async ({ id, origin, params, idempotency }) => {
    const event = await service.create(origin, params, idempotency);
    return { body: serializeV1MeterEvent(event), replayedFrom: replayedFrom(event, id) };
  },
);
