import { httpHandler, responds } from '#shared/http/handler.ts';
import { createMeterEventSessionParams } from '#shared/meter-events/schemas.ts';
import { serializeMeterEventSession } from '#shared/meter-events/serializer.ts';
import type { meterEventSessionObject } from '#shared/meter-events/objects.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** POST /v2/billing/meter_event_session: a token for the stream, valid 15 minutes. */
export const handler = httpHandler(
  {
    summary: 'Create a billing meter event session',
    description: 'A token for the meter event stream, valid for 15 minutes.',
    params: createMeterEventSessionParams,
    response: responds<typeof meterEventSessionObject>(),
  },
  async ({ origin, caller }) => {
    const { session, token } = await service.createSession(origin, caller.credentialId);
    return { body: serializeMeterEventSession(session, token) };
  },
);
