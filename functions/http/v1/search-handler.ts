import type { z } from 'zod';
import type { Expander } from '#shared/expansion/resolver.ts';
import { httpHandler, responds, type Responds } from '#shared/http/handler.ts';
import { searchParams } from '#shared/search/schemas.ts';
import type { searchService } from '#shared/search/service.ts';
import { v1SearchResult, type V1SearchResultObject } from '#shared/wire/pagination.ts';

type ObjectType = Parameters<typeof searchParams>[0];

/**
 * The handler of `GET /v1/<resources>/search`: the query language of `resource`, `expand[]` as its list's,
 * newest first, pages sealed to their query. Each search route is one call of this.
 */
export function searchHandler<T extends { id: string }, O extends z.ZodType>(options: {
  type: ObjectType;
  url: string;
  summary: string;
  description: string;
  /** The found objects' schema, by type (`responds<typeof customerObject>()`): the route table declares the result's. */
  object: Responds<O>;
  search: ReturnType<typeof searchService<T>>;
  serialize: (item: T) => z.input<O>;
  /** `wireExpander(type, …)` on the loader groups the type's `expand[]` reaches. */
  expand: Expander;
}) {
  const { type, url, summary, description, search, serialize, expand } = options;
  return httpHandler(
    { summary, description, params: searchParams(type), response: responds<V1SearchResultObject<O>>(), v1Search: true, rateLimit: 'search', expand },
    async ({ caller, params, searchPages }) => {
      const page = await search.search(caller.scope, { query: params.query, limit: params.limit ?? 10, after: searchPages!.open(params.page, params.query) });
      return { body: v1SearchResult(url, page, page.items.map(serialize), (after) => searchPages!.seal(after, params.query)) };
    },
  );
}
