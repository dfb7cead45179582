import { serializePrice, priceObject } from '#shared/catalogue/serializer.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v1SearchResult, v1SearchResultObject } from '#shared/http/pagination.ts';
import { searchParams } from '#shared/search/schemas.ts';
import { wirePriceSearch } from '#shared/search/wiring.ts';

const search = wirePriceSearch();
const catalogue = wireCatalogueService();

/** GET /v1/prices/search: over active, created, currency, lookup_key, metadata, product and type; `expand[]` as the list's; newest first. */
export const handler = httpHandler(
  {
    summary: 'Search prices',
    description: 'The search query language over active, created, currency, lookup_key, metadata, product and type; newest first.',
    params: searchParams(['data.product', 'data.currency_options']),
    response: v1SearchResultObject(priceObject),
    v1Search: true,
    rateLimit: 'search',
  },
  async ({ caller, params, searchPages }) => {
    const page = await search.search(caller.scope, { query: params.query, limit: params.limit ?? 10, after: searchPages!.open(params.page, params.query) });
    const expand = (params.expand ?? []).map((field) => field.slice('data.'.length));
    const data = await Promise.all(page.items.map(async (price) => serializePrice(price, await catalogue.priceExpansions(caller.scope, price, expand))));
    return { body: v1SearchResult('/v1/prices/search', page, data, (after) => searchPages!.seal(after, params.query)) };
  },
);
