import { serializeProduct, productObject } from '#shared/catalogue/serializer.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v1SearchResult, v1SearchResultObject } from '#shared/wire/pagination.ts';
import { searchParams } from '#shared/search/schemas.ts';
import { wireProductSearch } from '#shared/search/wiring.ts';

const search = wireProductSearch();
const expander = wireExpander();

/** GET /v1/products/search: over active, created, description, metadata, name, shippable and url; archived products included; `expand[]` as the list's; newest first. */
export const handler = httpHandler(
  {
    summary: 'Search products',
    description: 'The search query language over active, created, description, metadata, name, shippable and url; archived products included; newest first.',
    params: searchParams('product'),
    response: v1SearchResultObject(productObject),
    v1Search: true,
    rateLimit: 'search',
    expand: expander,
  },
  async ({ caller, params, searchPages }) => {
    const page = await search.search(caller.scope, { query: params.query, limit: params.limit ?? 10, after: searchPages!.open(params.page, params.query) });
    return { body: v1SearchResult('/v1/products/search', page, page.items.map(serializeProduct), (after) => searchPages!.seal(after, params.query)) };
  },
);
