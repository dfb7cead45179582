import { retrieveEventDestinationParams } from '#shared/event-destinations/schemas.ts';
import { serializeEventDestination } from '#shared/event-destinations/serializer.ts';
import type { eventDestinationObject } from '#shared/event-destinations/objects.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireEventDestinationService();

/** GET /v2/core/event_destinations/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve an event destination', params: retrieveEventDestinationParams, response: responds<typeof eventDestinationObject>() },
  async ({ caller, params, pathParameters }) => ({
    body: serializeEventDestination(await service.retrieve(caller.scope, pathParameters.id!), params.include),
  }),
);
