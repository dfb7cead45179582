import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { InvalidRequestError } from '#shared/core/errors.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import type { SearchPage } from './paging.ts';

/** Reads v1 `limit` / `starting_after` / `ending_before`; the two cursors cannot be combined. */
export function v1PageRequest(params: { limit?: number; starting_after?: string; ending_before?: string }): PageRequest {
  if (params.starting_after !== undefined && params.ending_before !== undefined) {
    throw new InvalidRequestError('You may only specify one of these parameters: ending_before, starting_after.', 'parameter_invalid', 'ending_before');
  }
  return { limit: params.limit ?? 10, startingAfter: params.starting_after, endingBefore: params.ending_before };
}

/** The v1 list envelope of `item` objects. */
export const v1ListObject = <T extends z.ZodType>(item: T) =>
  z.object({
    object: z.literal('list').describe("String representing the object's type: always `list`."),
    data: z.array(item).describe('The objects of this page.'),
    has_more: z.boolean().describe('Whether there are more objects after this page.'),
    url: z.string().describe('The URL of this list.'),
  });
/** The type of `v1ListObject(item)`, for a handler that types its body without building the schema. */
export type V1ListObject<T extends z.ZodType> = ReturnType<typeof v1ListObject<T>>;

/**
 * Most bytes a list page's objects may take, measured as they travel in the Lambda proxy response (the
 * body is a JSON string inside a JSON document, so each object is counted encoded twice): Lambda refuses
 * responses over 6 MB, and a page of large objects (issuing authorizations with their transactions,
 * events, accounts with large metadata) could exceed it.
 */
export const maxPageBytes = 4 * 1024 * 1024;

/**
 * How many of `objects`, from the first, fit in `maxPageBytes` (never fewer than one). Encoding JSON again
 * at most doubles it, so a page whose JSON is under half the budget (every ordinary page) is measured once,
 * whole; only a larger one is measured object by object.
 */
function keptWithin(objects: readonly unknown[]): number {
  if (2 * Buffer.byteLength(JSON.stringify(objects), 'utf8') <= maxPageBytes) return objects.length;
  let bytes = 0;
  let kept = 0;
  for (const object of objects) {
    bytes += Buffer.byteLength(JSON.stringify(JSON.stringify(object)), 'utf8');
    if (kept > 0 && bytes > maxPageBytes) break;
    kept += 1;
  }
  return kept;
}

/**
 * The v1 list envelope. `url` is the list's path without query, as the reference API renders it. A page
 * over `maxPageBytes` is cut short (never below one object) with `has_more: true`: the objects kept are
 * the ones nearest the cursor, so the next page (from the last object, or from the first with
 * `ending_before`) starts with the first one left out.
 */
export function v1List<T>(url: string, page: Page<T>, params: { ending_before?: string }): { object: 'list'; data: T[]; has_more: boolean; url: string } {
  return fitV1Page({ object: 'list' as const, data: page.items, has_more: page.hasMore, url }, params);
}

/**
 * A v1 list page cut to `maxPageBytes` as `v1List` cuts it (the objects nearest the cursor kept, `has_more`
 * set): what a page's expansions (`expand[]=data.…`) made larger is cut again after them.
 */
export function fitV1Page<L extends { data: unknown[]; has_more: boolean }>(list: L, params: { ending_before?: string }): L {
  const backwards = params.ending_before !== undefined;
  const kept = keptWithin(backwards ? [...list.data].reverse() : list.data);
  if (kept === list.data.length) return list;
  return { ...list, data: backwards ? list.data.slice(list.data.length - kept) : list.data.slice(0, kept), has_more: true };
}

/** A v2 list's position: where this page starts, and how to link the page after it. */
export interface V2Paging {
  /** The storage cursor this page starts after, from `page`; undefined on the first page. */
  cursor: string | undefined;
  /** The `next_page_url` of a page that ends at `cursor`: a signed token carrying this list's parameters. */
  nextPageUrl(cursor: string): string;
}

/** The v2 list envelope of `item` objects. */
export const v2ListObject = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item).describe('The objects of this page.'),
    next_page_url: z.string().nullable().describe('The URL of the next page (its `page` token carries the parameters); null on the last page.'),
    previous_page_url: z.string().nullable().describe('The URL of the previous page; null on the first.'),
  });
/** The type of `v2ListObject(item)`. */
export type V2ListObject<T extends z.ZodType> = ReturnType<typeof v2ListObject<T>>;

/** The v2 list envelope; the official SDK follows `next_page_url` verbatim, so it is origin-relative. */
export function v2List<T>(data: T[], nextPageUrl: string | null): { data: T[]; next_page_url: string | null; previous_page_url: null } {
  return { data, next_page_url: nextPageUrl, previous_page_url: null };
}

/**
 * A v2 list page of `page`'s objects, serialized, up to `maxPageBytes` (never fewer than one), with a
 * `next_page_url` from the last object kept when the store has more or the page was cut.
 */
export function v2Page<T, O>(page: Page<T>, serialize: (item: T) => O, paging: V2Paging, cursorOf: (item: T) => string) {
  const data = page.items.map(serialize);
  const kept = keptWithin(data);
  const more = page.hasMore || kept < data.length;
  return v2List(data.slice(0, kept), more ? paging.nextPageUrl(cursorOf(page.items[kept - 1]!)) : null);
}

/** What a page token holds: the first request's parameters (as sent) and the position. */
const pageTokenContents = z.strictObject({
  params: z.record(z.string(), z.unknown()),
  cursor: z.string().min(1).max(255),
});
type PageTokenContents = z.output<typeof pageTokenContents>;

/** Longer tokens are not ours: a list's parameters are a few filters and includes. */
const maxPageTokenLength = 4096;

const invalidToken = () => new InvalidRequestError('The page token is invalid or has been tampered with.', 'invalid_page_token', 'page');

const tag = (key: Buffer, binding: string, payload: string) => createHmac('sha256', key).update(`${binding}\n${payload}`).digest('base64url');

/**
 * Seals the position and parameters of a list in a token: base64url JSON and an HMAC-SHA256 over it and
 * the `binding` (owner, mode and path), so a token works only for the list, account and mode that made it.
 */
export function sealPageToken(key: Buffer, binding: string, contents: PageTokenContents): string {
  const payload = Buffer.from(JSON.stringify(contents), 'utf8').toString('base64url');
  return `${payload}.${tag(key, binding, payload)}`;
}

/** Opens a token made by {@link sealPageToken} for the same binding; anything else is a 400. */
export function openPageToken(key: Buffer, binding: string, token: string): PageTokenContents {
  if (token.length > maxPageTokenLength) throw invalidToken();
  const [payload = '', mac = '', ...rest] = token.split('.');
  const expected = Buffer.from(tag(key, binding, payload));
  const given = Buffer.from(mac);
  if (rest.length > 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidToken();
  try {
    return pageTokenContents.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    throw invalidToken();
  }
}

/**
 * Resumes a v2 list: with `page`, the parameters are the ones the token carries (to be validated again by
 * the list's own schema, exactly as on the first request) and the cursor is its position; without, the
 * request's own. `page` cannot be mixed with other parameters: the token stands for all of them.
 */
export function resumeV2List(raw: Record<string, unknown>, key: Buffer, binding: string, path: string): { params: Record<string, unknown>; paging: V2Paging } {
  const { page, ...given } = raw;
  const link = (params: Record<string, unknown>) => (cursor: string) => `${path}?page=${sealPageToken(key, binding, { params, cursor })}`;
  if (page === undefined) return { params: given, paging: { cursor: undefined, nextPageUrl: link(given) } };
  if (typeof page !== 'string') throw invalidToken();
  const names = Object.keys(given);
  if (names.length > 0) {
    throw new InvalidRequestError(`page carries the list's parameters; it cannot be combined with ${names.join(', ')}.`, 'parameter_invalid', 'page');
  }
  const contents = openPageToken(key, binding, page);
  return { params: contents.params, paging: { cursor: contents.cursor, nextPageUrl: link(contents.params) } };
}

/** The v1 search result envelope of `item` objects (`total_count` is the reference's opt-in expansion, not offered). */
export const v1SearchResultObject = <T extends z.ZodType>(item: T) =>
  z.object({
    object: z.literal('search_result').describe("String representing the object's type: always `search_result`."),
    data: z.array(item).describe('The objects that match the query, newest first.'),
    has_more: z.boolean().describe('Whether there may be more matches after this page.'),
    next_page: z.string().nullable().describe('The `page` parameter that continues this search; null on the last page.'),
    url: z.string().describe('The URL where this search can be accessed.'),
  });
/** The type of `v1SearchResultObject(item)`. */
export type V1SearchResultObject<T extends z.ZodType> = ReturnType<typeof v1SearchResultObject<T>>;

/**
 * The v1 search result of `page`, whose objects `data` renders one for one: up to `maxPageBytes` (never
 * fewer than one), with a `next_page` token (from `nextPage`) while there may be more.
 */
export function v1SearchResult<T extends { id: string }, O>(url: string, page: SearchPage<T>, data: O[], nextPage: (after: string) => string) {
  const kept = keptWithin(data);
  const resume = kept < data.length ? page.items[kept - 1]!.id : page.resumeAfter;
  return { object: 'search_result' as const, data: data.slice(0, kept), has_more: resume !== null, next_page: resume === null ? null : nextPage(resume), url };
}

/**
 * A v1 search result cut to `maxPageBytes` as `v1SearchResult` cuts it: what its expansions
 * (`expand[]=data.…`) made larger is cut again after them, `next_page` resuming after the last object kept.
 */
export function fitV1SearchResult<R extends { data: Array<{ id?: unknown }>; has_more: boolean; next_page: string | null }>(
  result: R,
  nextPage: (after: string) => string,
): R {
  const kept = keptWithin(result.data);
  if (kept === result.data.length) return result;
  return { ...result, data: result.data.slice(0, kept), has_more: true, next_page: nextPage(String(result.data[kept - 1]!.id)) };
}

/** Where a v1 search page resumes: `page` tokens signed for one account, mode, path and query. */
export interface SearchPages {
  /** The id the token resumes after (undefined without a token); another query's, list's, account's or mode's token is a 400 on `page`. */
  open(page: string | undefined, query: string): string | undefined;
  /** The `next_page` token of a page that ends at `after`. */
  seal(after: string, query: string): string;
}

/**
 * v1 search page tokens, sealed as v2 page tokens are (`binding` names the account, mode and path) and
 * bound to the query too: the official SDK sends the query again with each `page`, and a token only
 * continues the query that made it.
 */
export function v1SearchPages(key: Buffer, binding: string): SearchPages {
  const bound = (query: string) => `${binding}\nquery:${createHash('sha256').update(query, 'utf8').digest('base64url')}`;
  return {
    open: (page, query) => (page === undefined ? undefined : openPageToken(key, bound(query), page).cursor),
    seal: (after, query) => sealPageToken(key, bound(query), { params: {}, cursor: after }),
  };
}
