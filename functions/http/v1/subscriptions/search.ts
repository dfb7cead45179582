import { wireExpander } from '#shared/expansion/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v1SearchResult, v1SearchResultObject } from '#shared/wire/pagination.ts';
import { searchParams } from '#shared/search/schemas.ts';
import { wireSubscriptionSearch } from '#shared/search/wiring.ts';
import { serializeSubscription, subscriptionObject } from '#shared/subscriptions/serializer.ts';

const search = wireSubscriptionSearch();
const expander = wireExpander();

/** GET /v1/subscriptions/search: over created, metadata and status (canceled ones included); `expand[]` as the list's; newest first. */
export const handler = httpHandler(
  {
    summary: 'Search subscriptions',
    description: 'The search query language over created, metadata and status; canceled ones included; newest first.',
    params: searchParams('subscription'),
    response: v1SearchResultObject(subscriptionObject),
    v1Search: true,
    rateLimit: 'search',
    expand: expander,
  },
  async ({ caller, params, searchPages }) => {
    const page = await search.search(caller.scope, { query: params.query, limit: params.limit ?? 10, after: searchPages!.open(params.page, params.query) });
    const data = page.items.map((subscription) => serializeSubscription(subscription));
    return { body: v1SearchResult('/v1/subscriptions/search', page, data, (after) => searchPages!.seal(after, params.query)) };
  },
);
