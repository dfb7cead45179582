import { wireEventService } from '#shared/events/wiring.ts';
import { listSnapshotEventsParams } from '#shared/events/schemas.ts';
import { serializeSnapshotEvent } from '#shared/events/serializers.ts';
import type { snapshotEventObject } from '#shared/events/objects.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';

const service = wireEventService();

/** GET /v1/events: newest first, filtered by type(s), created and delivery_success; at the version the caller names, else its own. */
export const handler = httpHandler(
  {
    summary: 'List all events',
    description: "Newest first, rendered at the version the request names, else the account's.",
    params: listSnapshotEventsParams,
    response: responds<V1ListObject<typeof snapshotEventObject>>(),
  },
  async ({ caller, params, explicitServiceVersion }) => {
    const page = await service.listSnapshot(caller.scope, v1PageRequest(params), params);
    return {
      body: v1List('/v1/events', { ...page, items: page.items.map((event) => serializeSnapshotEvent(event, explicitServiceVersion ?? undefined)) }, params),
    };
  },
);
