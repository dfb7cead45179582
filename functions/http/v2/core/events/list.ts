import { wireEventService } from '#shared/events/wiring.ts';
import { listThinEventsParams } from '#shared/events/schemas.ts';
import { serializeThinEvent } from '#shared/events/serializers.ts';
import type { thinEventObject } from '#shared/events/objects.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v2Page, type V2ListObject } from '#shared/wire/pagination.ts';

const service = wireEventService();

/** GET /v2/core/events: newest first, filtered by object_id, types and created. */
export const handler = httpHandler(
  {
    summary: 'List all events (v2)',
    description: 'Newest first.',
    params: listThinEventsParams,
    response: responds<V2ListObject<typeof thinEventObject>>(),
    v2List: true,
  },
  async ({ caller, params, paging }) => {
    const { limit = 20, ...filters } = params;
    const page = await service.listThin(caller.scope, { limit, startingAfter: paging!.cursor }, filters);
    return { body: v2Page(page, serializeThinEvent, paging!, (event) => event.id) };
  },
);
