import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '#shared/errors.ts';
import { decodePageToken, v1PageRequest, v2List } from '#shared/http/pagination.ts';

describe('list envelopes', () => {
  it('bakes limit, filters and includes into an origin-relative next_page_url', () => {
    const state = { cursor: 'abc', limit: 2, filters: { types: ['v2.core.event_destination.ping'] }, include: ['webhook_endpoint.url'] };
    const list = v2List('/v2/core/event_destinations', [{ id: 'x' }], state);
    expect(list.next_page_url).toMatch(/^\/v2\/core\/event_destinations\?page=[A-Za-z0-9_-]+$/);
    expect(decodePageToken(new URL(list.next_page_url!, 'http://h').searchParams.get('page')!)).toEqual(state);
    expect(list.previous_page_url).toBeNull();
  });

  it('refuses a page token it did not make', () => {
    expect(() => decodePageToken('not-a-token')).toThrow(InvalidRequestError);
  });

  it('defaults the v1 limit to 10 and refuses both cursors at once', () => {
    expect(v1PageRequest({})).toEqual({ limit: 10, startingAfter: undefined, endingBefore: undefined });
    expect(() => v1PageRequest({ starting_after: 'a', ending_before: 'b' })).toThrow(InvalidRequestError);
  });
});
