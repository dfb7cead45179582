import { listEventDestinationsParams } from '#shared/event-destinations/schemas.ts';
import { serializeEventDestination } from '#shared/event-destinations/serializer.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2List, v2PageState } from '#shared/http/pagination.ts';

const service = wireEventDestinationService();

/** GET /v2/core/event_destinations: newest first; `include` and `limit` ride along in next_page_url. */
export const handler = httpHandler({ params: listEventDestinationsParams }, async ({ caller, params }) => {
  const state = v2PageState(params);
  const page = await service.list(caller.scope, { limit: state.limit, startingAfter: state.cursor });
  const next = page.hasMore ? { ...state, cursor: page.items.at(-1)!.id } : undefined;
  const include = (state.include ?? []) as typeof params.include;
  return { body: v2List('/v2/core/event_destinations', page.items.map((destination) => serializeEventDestination(destination, include)), next) };
});
