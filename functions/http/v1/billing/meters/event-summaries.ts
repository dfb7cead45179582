import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listEventSummariesParams } from '#shared/meter-events/schemas.ts';
import { serializeUsageSummary } from '#shared/meter-events/summaries.ts';
import type { usageSummaryObject } from '#shared/meter-events/summaries-objects.ts';
import { wireUsageSummaries } from '#shared/meter-events/wiring.ts';

const summaries = wireUsageSummaries();

/** GET /v1/billing/meters/:id/event_summaries: a customer's usage per window, oldest first. */
export const handler = httpHandler(
  {
    summary: 'List billing meter event summaries',
    description: "A customer's usage per window, oldest first.",
    params: listEventSummariesParams,
    response: responds<V1ListObject<typeof usageSummaryObject>>(),
  },
  async ({ caller, params, pathParameters }) => {
    const query = { customer: params.customer, start: params.start_time * 1000, end: params.end_time * 1000, grouping: params.value_grouping_window };
    const page = await summaries.list(caller.scope, pathParameters.id!, query, v1PageRequest(params));
    return { body: v1List(`/v1/billing/meters/${pathParameters.id}/event_summaries`, { ...page, items: page.items.map(serializeUsageSummary) }, params) };
  },
);
