import { wireEventService } from '#shared/events/wiring.ts';
import { listThinEventsParams } from '#shared/events/schemas.ts';
import { serializeThinEvent } from '#shared/events/serializers.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2List, v2PageState } from '#shared/http/pagination.ts';

const service = wireEventService();

/** GET /v2/core/events: newest first, filtered by object_id, types and created. */
export const handler = httpHandler({ params: listThinEventsParams }, async ({ caller, params }) => {
  const { limit, page, ...filters } = params;
  const state = v2PageState({ limit, page }, Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)));
  const { items, next } = await service.listThin(caller.scope, state);
  return { body: v2List('/v2/core/events', items.map(serializeThinEvent), next) };
});
