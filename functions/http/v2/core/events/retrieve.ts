import { wireEventService } from '#shared/events/wiring.ts';
import { retrieveThinEventParams } from '#shared/events/schemas.ts';
import { serializeThinEvent } from '#shared/events/serializers.ts';
import type { thinEventObject } from '#shared/events/objects.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireEventService();

/** GET /v2/core/events/{id}: the full event, `data` and `changes` included. */
export const handler = httpHandler(
  {
    summary: 'Retrieve an event (v2)',
    description: 'The full event, `data` and `changes` included.',
    params: retrieveThinEventParams,
    response: responds<typeof thinEventObject>(),
  },
  async ({ caller, pathParameters }) => ({
    body: serializeThinEvent(await service.retrieveThin(caller.scope, pathParameters.id!)),
  }),
);
