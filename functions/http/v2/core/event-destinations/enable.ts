import { noParams } from '#shared/wire/params.ts';
import { serializeEventDestination } from '#shared/event-destinations/serializer.ts';
import type { eventDestinationObject } from '#shared/event-destinations/objects.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireEventDestinationService();

/** POST /v2/core/event_destinations/{id}/enable: status enabled, status_details null. */
export const handler = httpHandler(
  {
    summary: 'Enable an event destination',
    description: '`status: enabled`, `status_details: null`.',
    params: noParams,
    response: responds<typeof eventDestinationObject>(),
  },
  async ({ origin, pathParameters }) => ({
    body: serializeEventDestination(await service.enable(origin, pathParameters.id!)),
  }),
);
