import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { maxPageBytes, openPageToken, resumeV2List, sealPageToken, v1List, v1PageRequest, v2List, v2Page, type V2Paging } from '#shared/wire/pagination.ts';

const key = Buffer.alloc(32, 7);
const binding = 'acct_1:false:/v2/core/event_destinations';
const path = '/v2/core/event_destinations';

const tokenOf = (url: string) => new URL(url, 'http://h').searchParams.get('page')!;

describe('v2 page tokens', () => {
  it('bakes the first request’s parameters into an origin-relative next_page_url and resumes from it', () => {
    const first = resumeV2List({ limit: '2', include: ['webhook_endpoint.url'] }, key, binding, path);
    expect(first.paging.cursor).toBeUndefined();
    const url = first.paging.nextPageUrl('ed_2');
    expect(url).toMatch(/^\/v2\/core\/event_destinations\?page=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const second = resumeV2List({ page: tokenOf(url) }, key, binding, path);
    expect(second).toMatchObject({ params: { limit: '2', include: ['webhook_endpoint.url'] }, paging: { cursor: 'ed_2' } });
    expect(v2List([{ id: 'x' }], url)).toEqual({ data: [{ id: 'x' }], next_page_url: url, previous_page_url: null });
  });

  it('refuses a token it did not make, a changed one, and one made for another list, account or mode', () => {
    const token = sealPageToken(key, binding, { params: { limit: '2' }, cursor: 'ed_2' });
    const [payload, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ params: { include: ['webhook_endpoint.signing_secret'], limit: 10_000_000 }, cursor: 'ed_2' })).toString(
      'base64url',
    );
    for (const bad of ['not-a-token', `${forged}.${mac}`, forged, `${payload}.${mac}x`, `${payload}.${mac}.x`, 'a'.repeat(5000)]) {
      expect(() => openPageToken(key, binding, bad)).toThrow(InvalidRequestError);
    }
    expect(() => openPageToken(Buffer.alloc(32, 8), binding, token)).toThrow(InvalidRequestError);
    expect(() => openPageToken(key, 'acct_1:true:/v2/core/event_destinations', token)).toThrow(InvalidRequestError);
    expect(() => openPageToken(key, 'acct_1:false:/v2/core/accounts', token)).toThrow(InvalidRequestError);
    expect(openPageToken(key, binding, token)).toEqual({ params: { limit: '2' }, cursor: 'ed_2' });
  });

  it('refuses page combined with other parameters', () => {
    const token = sealPageToken(key, binding, { params: {}, cursor: 'ed_2' });
    expect(() => resumeV2List({ page: token, limit: '5' }, key, binding, path)).toThrow(/cannot be combined with limit/);
  });
});

describe('v1 pages', () => {
  it('defaults the v1 limit to 10 and refuses both cursors at once', () => {
    expect(v1PageRequest({})).toEqual({ limit: 10, startingAfter: undefined, endingBefore: undefined });
    expect(() => v1PageRequest({ starting_after: 'a', ending_before: 'b' })).toThrow(InvalidRequestError);
  });

  it('cuts a page whose objects would exceed Lambda’s response limit, keeping those nearest the cursor', () => {
    // Given five objects of a little over a quarter of the page budget each (a quote takes 4 bytes in the proxy response)
    const big = (id: string) => ({ id, blob: '"'.repeat(maxPageBytes / 16) });
    const items = ['o5', 'o4', 'o3', 'o2', 'o1'].map(big);

    // Then a forward page keeps the newest ones, and says there is more
    const forward = v1List('/v1/things', { items, hasMore: false }, {});
    expect(forward.data.map((item) => item.id)).toEqual(['o5', 'o4', 'o3']);
    expect(forward.has_more).toBe(true);

    // And a backward page (ending_before) keeps the oldest, nearest its cursor
    const backward = v1List('/v1/things', { items, hasMore: false }, { ending_before: 'o0' });
    expect(backward.data.map((item) => item.id)).toEqual(['o3', 'o2', 'o1']);
    expect(backward.has_more).toBe(true);

    // And one object larger than the budget still goes out alone; a small page is untouched
    expect(
      v1List('/v1/things', { items: [big('huge'), big('next')].map((item) => ({ ...item, blob: item.blob.repeat(5) })), hasMore: false }, {}).data,
    ).toHaveLength(1);
    expect(v1List('/v1/things', { items: [{ id: 'a' }], hasMore: false }, {})).toEqual({
      object: 'list',
      data: [{ id: 'a' }],
      has_more: false,
      url: '/v1/things',
    });
  });
});

describe('v2 pages', () => {
  it('cuts a page whose objects would exceed Lambda’s response limit, linking the next page from the last object kept', () => {
    // Given five serialized objects of a little over a quarter of the page budget each
    const items = ['o5', 'o4', 'o3', 'o2', 'o1'].map((id) => ({ id }));
    const serialize = (item: { id: string }) => ({ id: item.id, blob: '"'.repeat(maxPageBytes / 16) });
    const paging: V2Paging = { cursor: undefined, nextPageUrl: (cursor) => `/v2/things?page=after-${cursor}` };

    // Then the page keeps the first three and its next page starts after the third, though the store had no more
    const page = v2Page({ items, hasMore: false }, serialize, paging, (item) => item.id);
    expect(page.data.map((item) => item.id)).toEqual(['o5', 'o4', 'o3']);
    expect(page.next_page_url).toBe('/v2/things?page=after-o3');

    // And a small page links on only when the store has more
    expect(
      v2Page(
        { items: [{ id: 'a' }], hasMore: false },
        (item) => item,
        paging,
        (item) => item.id,
      ).next_page_url,
    ).toBeNull();
    expect(
      v2Page(
        { items: [{ id: 'a' }], hasMore: true },
        (item) => item,
        paging,
        (item) => item.id,
      ),
    ).toEqual(v2List([{ id: 'a' }], '/v2/things?page=after-a'));
    expect(
      v2Page(
        { items: [], hasMore: false },
        (item) => item,
        paging,
        () => 'x',
      ),
    ).toEqual(v2List([], null));
  });
});
