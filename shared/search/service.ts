import type { Scope } from '#shared/platform/types.ts';
import type { SearchPage } from '#shared/wire/paging.ts';
import { parseSearchQuery, type SearchableResource } from './query.ts';

/** One page's read: newest first, below `after`, inside the creation window, keeping what `matches`. */
export interface SearchRead<T> {
  /** The id the previous page stopped at (exclusive); none on the first page. */
  after?: string;
  /** Milliseconds, inclusive; an absent side is open. */
  created: { from?: number; to?: number };
  limit: number;
  matches: (object: T) => boolean;
}

/** A kind's objects of one owner, read page by page with a bounded cost (the adapter declares the budget). */
export interface SearchableStore<T> {
  search(scope: Scope, read: SearchRead<T>): Promise<SearchPage<T>>;
}

/** Search of one resource: the query is parsed and checked first (a bad one is a 400 before any read). */
export function searchService<T>(store: SearchableStore<T>, resource: SearchableResource<T>) {
  return {
    search(scope: Scope, request: { query: string; limit: number; after?: string }): Promise<SearchPage<T>> {
      const { matches, created } = parseSearchQuery(request.query, resource);
      return store.search(scope, { after: request.after, created, limit: request.limit, matches });
    },
  };
}
