import { InvalidRequestError } from '#shared/errors.ts';

/** A page request in storage terms: newest first, optionally after or before a known id. */
export interface PageRequest {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

export interface Page<T> {
  items: T[];
  /** More items exist beyond this page in the direction of travel. */
  hasMore: boolean;
}

/** Reads v1 `limit` / `starting_after` / `ending_before`; the two cursors cannot be combined. */
export function v1PageRequest(params: { limit?: number; starting_after?: string; ending_before?: string }): PageRequest {
  if (params.starting_after !== undefined && params.ending_before !== undefined) {
    throw new InvalidRequestError('You may only specify one of these parameters: ending_before, starting_after.', 'parameter_invalid', 'ending_before');
  }
  return { limit: params.limit ?? 10, startingAfter: params.starting_after, endingBefore: params.ending_before };
}

/** The v1 list envelope. `url` is the list's path without query, as the reference API renders it. */
export function v1List<T>(url: string, page: Page<T>) {
  return { object: 'list' as const, data: page.items, has_more: page.hasMore, url };
}

/** Everything a v2 list needs to produce its next page: position, size, filters and includes. */
export interface V2PageState {
  /** Opaque storage cursor (built from LastEvaluatedKey), absent on the first page. */
  cursor?: string;
  limit: number;
  filters?: Record<string, unknown>;
  include?: string[];
}

export function encodePageToken(state: V2PageState): string {
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
}

/** Decodes a `page` token; anything that is not one of ours is a 400. */
export function decodePageToken(token: string): V2PageState {
  try {
    const state = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as V2PageState;
    if (typeof state === 'object' && state !== null && Number.isInteger(state.limit)) return state;
  } catch {
    // fall through to the error below
  }
  throw new InvalidRequestError('The page token is invalid or has been tampered with.', 'invalid_page_token', 'page');
}

/**
 * The v2 list envelope. The official SDK follows `next_page_url` verbatim without re-sending parameters,
 * so the token carries the limit, every filter and every `include`; the URL is origin-relative.
 */
export function v2List<T>(path: string, data: T[], next: V2PageState | undefined, previous?: V2PageState) {
  const url = (state: V2PageState | undefined) => (state ? `${path}?page=${encodePageToken(state)}` : null);
  return { data, next_page_url: url(next), previous_page_url: url(previous) };
}

/**
 * The state of a v2 list request: from `page` when following a `next_page_url` (which carries everything),
 * else from the request's own `limit`, filters and `include`.
 */
export function v2PageState(
  params: { limit?: number; page?: string; include?: string[] },
  filters: Record<string, unknown> = {},
): V2PageState {
  if (params.page === undefined) return { limit: params.limit ?? 20, filters, include: params.include };
  const given = Object.entries({ ...filters, limit: params.limit, include: params.include }).filter(([, value]) => value !== undefined);
  if (given.length > 0) {
    throw new InvalidRequestError(
      `page carries the list's parameters; it cannot be combined with ${given.map(([key]) => key).join(', ')}.`,
      'parameter_invalid',
      'page',
    );
  }
  return decodePageToken(params.page);
}
