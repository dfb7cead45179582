import { wireEventService } from '#shared/events/wiring.ts';
import { listThinEventsParams } from '#shared/events/schemas.ts';
import { serializeThinEvent, thinEventObject } from '#shared/events/serializers.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2ListObject, v2Page } from '#shared/wire/pagination.ts';

const service = wireEventService();

/** GET /v2/core/events: newest first, filtered by object_id, types and created. */
export const handler = httpHandler(
  { summary: 'List all events (v2)', description: 'Newest first.', params: listThinEventsParams, response: v2ListObject(thinEventObject), v2List: true },
  async ({ caller, params, paging }) => {
    const { limit = 20, ...filters } = params;
    const page = await service.listThin(caller.scope, { limit, startingAfter: paging!.cursor }, filters);
    return { body: v2Page(page, serializeThinEvent, paging!, (event) => event.id) };
  },
);
