import { bearerToken } from '#shared/http/authenticate.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { meterEventStreamParams } from '#shared/meter-events/schemas.ts';
import type { meterEventStreamAccepted } from '#shared/meter-events/objects.ts';
import { wireMeterEventService } from '#shared/meter-events/wiring.ts';

const service = wireMeterEventService();

/** POST /v2/billing/meter_event_stream: up to 100 events, authenticated by a session token, validated when processed. */
export const handler = httpHandler(
  {
    summary: 'Send billing meter events in a stream',
    description: 'Up to 100 events, authenticated by a meter event session token, checked when processed.',
    params: meterEventStreamParams,
    authenticate: (headers) => service.authenticateSession(bearerToken(headers)),
    rateLimit: 'meter_event_stream',
    status: 202,
    response: responds<typeof meterEventStreamAccepted>(),
  },
  async ({ caller, params }) => {
    await service.acceptStream(caller, params.events);
    return { body: {} };
  },
);
