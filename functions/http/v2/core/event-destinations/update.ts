import { updateEventDestinationParams } from '#shared/event-destinations/schemas.ts';
import { serializeEventDestination } from '#shared/event-destinations/serializer.ts';
import type { eventDestinationObject } from '#shared/event-destinations/objects.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireEventDestinationService();

/** POST /v2/core/event_destinations/{id} */
export const handler = httpHandler(
  { summary: 'Update an event destination', params: updateEventDestinationParams, response: responds<typeof eventDestinationObject>() },
  async ({ origin, params, pathParameters }) => ({
    body: serializeEventDestination(await service.update(origin, pathParameters.id!, params), params.include),
  }),
);
