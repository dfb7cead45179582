import { noParams } from '#shared/wire/params.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { serializeThinEvent } from '#shared/events/serializers.ts';
import type { thinEventObject } from '#shared/events/objects.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireEventDestinationService();

/** POST /v2/core/event_destinations/{id}/ping: emits and delivers a v2.core.event_destination.ping event. */
export const handler = httpHandler(
  {
    summary: 'Ping an event destination',
    description: 'Emits and delivers a `v2.core.event_destination.ping` event.',
    params: noParams,
    response: responds<typeof thinEventObject>(),
  },
  async ({ origin, pathParameters }) => ({
    body: serializeThinEvent(await service.ping(origin, pathParameters.id!)),
  }),
);
