/** A page request in storage terms: newest first, optionally after or before a known id. */
export interface PageRequest {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

/** A creation-time window in epoch milliseconds, both ends inclusive (either may be open). */
export interface TimeRange {
  from?: number;
  to?: number;
}

/** One page of a list, as stores and services answer it (the HTTP layer renders v1 and v2 lists from it). */
export interface Page<T> {
  items: T[];
  /** More items exist beyond this page in the direction of travel. */
  hasMore: boolean;
}

/**
 * One page of a short list held in memory (newest first, by id, as stores list), by the stores' cursor
 * rules: `startingAfter` gives the items older than it, `endingBefore` the ones just newer than it.
 */
export function pageOf<T extends { id: string }>(newestFirst: readonly T[], page: PageRequest): Page<T> {
  if (page.endingBefore !== undefined) {
    const newer = newestFirst.filter((item) => item.id > page.endingBefore!);
    return { items: newer.slice(Math.max(0, newer.length - page.limit)), hasMore: newer.length > page.limit };
  }
  const after = page.startingAfter === undefined ? newestFirst : newestFirst.filter((item) => item.id < page.startingAfter!);
  return { items: after.slice(0, page.limit), hasMore: after.length > page.limit };
}

/**
 * Up to `limit` matches, newest first. `resumeAfter` is where the next page starts (the last match when
 * one more was found, else the last object read when the read budget ran out); null when nothing is left.
 */
export interface SearchPage<T> {
  items: T[];
  resumeAfter: string | null;
}
