import { httpHandler } from '#shared/http/handler.ts';
import { createMeterEventParams } from '#shared/meter-events/schemas.ts';
import { serializeMeterEvent, meterEventObject } from '#shared/meter-events/serializer.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** POST /v2/billing/meter_events: validated and stored now, counted by the meter-events worker. */
export const handler = httpHandler({ params: createMeterEventParams, response: meterEventObject, rateLimit: 'meter_events' }, async ({ origin, params }) => ({
  body: serializeMeterEvent(await service.create(origin, params)),
}));
