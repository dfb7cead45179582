import { listEventDestinationsParams } from '#shared/event-destinations/schemas.ts';
import { serializeEventDestination, eventDestinationObject } from '#shared/event-destinations/serializer.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2List, v2ListObject } from '#shared/http/pagination.ts';

const service = wireEventDestinationService();

/** GET /v2/core/event_destinations: newest first; `include` and `limit` ride along in next_page_url. */
export const handler = httpHandler(
  { params: listEventDestinationsParams, response: v2ListObject(eventDestinationObject), v2List: true },
  async ({ caller, params, paging }) => {
    const page = await service.list(caller.scope, { limit: params.limit ?? 20, startingAfter: paging!.cursor });
    const next = page.hasMore ? paging!.nextPageUrl(page.items.at(-1)!.id) : null;
    return {
      body: v2List(
        page.items.map((destination) => serializeEventDestination(destination, params.include ?? [])),
        next,
      ),
    };
  },
);
