import { serializePrice, priceObject } from '#shared/catalogue/serializer.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v1SearchResult, v1SearchResultObject } from '#shared/wire/pagination.ts';
import { searchParams } from '#shared/search/schemas.ts';
import { wirePriceSearch } from '#shared/search/wiring.ts';

const search = wirePriceSearch();
const expander = wireExpander();

/** GET /v1/prices/search: over active, created, currency, lookup_key, metadata, product and type; `expand[]` as the list's; newest first. */
export const handler = httpHandler(
  {
    summary: 'Search prices',
    description: 'The search query language over active, created, currency, lookup_key, metadata, product and type; newest first.',
    params: searchParams('price'),
    response: v1SearchResultObject(priceObject),
    v1Search: true,
    rateLimit: 'search',
    expand: expander,
  },
  async ({ caller, params, searchPages }) => {
    const page = await search.search(caller.scope, { query: params.query, limit: params.limit ?? 10, after: searchPages!.open(params.page, params.query) });
    const data = page.items.map((price) => serializePrice(price));
    return { body: v1SearchResult('/v1/prices/search', page, data, (after) => searchPages!.seal(after, params.query)) };
  },
);
