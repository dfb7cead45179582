import { wireEventService } from '#shared/events/wiring.ts';
import { retrieveSnapshotEventParams } from '#shared/events/schemas.ts';
import { serializeSnapshotEvent } from '#shared/events/serializers.ts';
import type { snapshotEventObject } from '#shared/events/objects.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireEventService();

/** GET /v1/events/{id}: events of the last 30 days, at the version the caller names, else its own. */
export const handler = httpHandler(
  {
    summary: 'Retrieve an event',
    description: "Events of the last 30 days, rendered at the version the request names, else the account's.",
    params: retrieveSnapshotEventParams,
    response: responds<typeof snapshotEventObject>(),
  },
  async ({ caller, pathParameters, explicitServiceVersion }) => ({
    body: serializeSnapshotEvent(await service.retrieveSnapshot(caller.scope, pathParameters.id!), explicitServiceVersion ?? undefined),
  }),
);
