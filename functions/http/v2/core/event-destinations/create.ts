import { createEventDestinationParams } from '#shared/event-destinations/schemas.ts';
import { serializeEventDestination } from '#shared/event-destinations/serializer.ts';
import type { eventDestinationObject } from '#shared/event-destinations/objects.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireEventDestinationService();

/** POST /v2/core/event_destinations: the only call that can include the signing secret. */
export const handler = httpHandler(
  {
    summary: 'Create an event destination',
    description: 'The only call whose answer can include the signing secret.',
    params: createEventDestinationParams,
    response: responds<typeof eventDestinationObject>(),
  },
  async ({ origin, params }) => ({
    body: serializeEventDestination(await service.create(origin, params), params.include),
  }),
);
