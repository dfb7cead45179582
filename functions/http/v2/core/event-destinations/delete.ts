import { noParams } from '#shared/wire/params.ts';
import { serializeDeletedEventDestination } from '#shared/event-destinations/serializer.ts';
import type { deletedEventDestinationObject } from '#shared/event-destinations/objects.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireEventDestinationService();

/** DELETE /v2/core/event_destinations/{id} */
export const handler = httpHandler(
  { summary: 'Delete an event destination', params: noParams, response: responds<typeof deletedEventDestinationObject>() },
  async ({ origin, pathParameters }) => {
    await service.delete(origin, pathParameters.id!);
    return { body: serializeDeletedEventDestination(pathParameters.id!) };
  },
);
