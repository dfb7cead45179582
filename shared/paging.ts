/** A page request in storage terms: newest first, optionally after or before a known id. */
export interface PageRequest {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

/** One page of a list, as stores and services answer it (the HTTP layer renders v1 and v2 lists from it). */
export interface Page<T> {
  items: T[];
  /** More items exist beyond this page in the direction of travel. */
  hasMore: boolean;
}
