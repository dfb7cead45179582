import { serializeCustomer, customerObject } from '#shared/customers/serializer.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v1SearchResult, v1SearchResultObject } from '#shared/wire/pagination.ts';
import { searchParams } from '#shared/search/schemas.ts';
import { wireCustomerSearch } from '#shared/search/wiring.ts';

const search = wireCustomerSearch();
const expander = wireExpander();

/** GET /v1/customers/search: the reference's query language over created, email, metadata, name and phone; `expand[]` as the list's; newest first. */
export const handler = httpHandler(
  {
    summary: 'Search customers',
    description: 'The search query language over created, email, metadata, name and phone; newest first.',
    params: searchParams('customer'),
    response: v1SearchResultObject(customerObject),
    v1Search: true,
    rateLimit: 'search',
    expand: expander,
  },
  async ({ caller, params, searchPages }) => {
    const page = await search.search(caller.scope, { query: params.query, limit: params.limit ?? 10, after: searchPages!.open(params.page, params.query) });
    const data = page.items.map((customer) => serializeCustomer(customer));
    return { body: v1SearchResult('/v1/customers/search', page, data, (after) => searchPages!.seal(after, params.query)) };
  },
);
