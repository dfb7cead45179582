import { listEventDestinationsParams } from '#shared/event-destinations/schemas.ts';
import { serializeEventDestination } from '#shared/event-destinations/serializer.ts';
import type { eventDestinationObject } from '#shared/event-destinations/objects.ts';
import { wireEventDestinationService } from '#shared/event-destinations/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v2Page, type V2ListObject } from '#shared/wire/pagination.ts';

const service = wireEventDestinationService();

/** GET /v2/core/event_destinations: newest first; `include` and `limit` ride along in next_page_url. */
export const handler = httpHandler(
  {
    summary: 'List event destinations',
    description: 'Newest first.',
    params: listEventDestinationsParams,
    response: responds<V2ListObject<typeof eventDestinationObject>>(),
    v2List: true,
  },
  async ({ caller, params, paging }) => {
    const page = await service.list(caller.scope, { limit: params.limit ?? 20, startingAfter: paging!.cursor });
    return {
      body: v2Page(
        page,
        (destination) => serializeEventDestination(destination, params.include ?? []),
        paging!,
        (destination) => destination.id,
      ),
    };
  },
);
