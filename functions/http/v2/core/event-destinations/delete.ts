import { noParams } from '#shared/wire/params.ts';
import { serializeDeletedEventDestination, deletedEventDestinationObject } from '#shared/event-destinations/serializer.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireEventDestinationService();

/** DELETE /v2/core/event_destinations/{id} */
export const handler = httpHandler(
  { summary: 'Delete an event destination', params: noParams, response: deletedEventDestinationObject },
  async ({ origin, pathParameters }) => {
    await service.delete(origin, pathParameters.id!);
    return { body: serializeDeletedEventDestination(pathParameters.id!) };
  },
);
