import { describe, expect, it } from 'vitest';
import { InvalidRequestError, RequestTooLargeError, UnsupportedMediaTypeError } from '#shared/core/errors.ts';
import { decodeParams, parseBracketParams, parseJsonBody, type RawRequest } from '#shared/http/encoding.ts';

const request = (overrides: Partial<RawRequest>): RawRequest => ({
  api: 'v1',
  method: 'POST',
  contentType: 'application/x-www-form-urlencoded',
  query: '',
  body: undefined,
  isBase64Encoded: false,
  maxBodyBytes: 1024,
  ...overrides,
});

describe('request encoding', () => {
  it('parses bracket notation into nested objects and indexed arrays', () => {
    const params = parseBracketParams('a[b][c]=v&enabled_events[0]=customer.created&enabled_events[1]=*&metadata[k]=', 'body');
    expect(params).toEqual({ a: { b: { c: 'v' } }, enabled_events: ['customer.created', '*'], metadata: { k: '' } });
  });

  it('refuses absurdly deep nesting with a 400 instead of flattening it', () => {
    expect(() => parseBracketParams('a[b][c][d][e][f][g][h]=1', 'body')).toThrow(InvalidRequestError);
  });

  it('refuses more parameters than the limit', () => {
    const body = Array.from({ length: 1500 }, (_, i) => `k${i}=v`).join('&');
    expect(() => parseBracketParams(body, 'body')).toThrow(/could not be parsed/);
  });

  it('ignores prototype-polluting keys', () => {
    const params = parseBracketParams('__proto__[admin]=1&x=1', 'query');
    expect(params).toEqual({ x: '1' });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('takes a v2 JSON object body and refuses arrays, scalars, bad JSON and deep nesting', () => {
    expect(parseJsonBody('{"name":"x"}')).toEqual({ name: 'x' });
    expect(() => parseJsonBody('[1]')).toThrow(/must be a JSON object/);
    expect(() => parseJsonBody('{"a":')).toThrow(/not valid JSON/);
    const deep = `${'{"a":'.repeat(30)}1${'}'.repeat(30)}`;
    expect(() => parseJsonBody(deep)).toThrow(/nested more than/);
  });

  it('accepts a GET with a JSON content type and no body, as the SDK sends it', () => {
    const params = decodeParams(request({ api: 'v2', method: 'GET', contentType: 'application/json', query: 'include[0]=webhook_endpoint.url&limit=2' }));
    expect(params).toEqual({ include: ['webhook_endpoint.url'], limit: '2' });
  });

  it('refuses a v1 JSON body and a v2 form body with 415', () => {
    expect(() => decodeParams(request({ contentType: 'application/json', body: '{}' }))).toThrow(UnsupportedMediaTypeError);
    expect(() => decodeParams(request({ api: 'v2', body: 'a=b' }))).toThrow(UnsupportedMediaTypeError);
  });

  it('refuses a body over the limit with 413, counting decoded bytes', () => {
    const body = Buffer.from('x'.repeat(2000)).toString('base64');
    expect(() => decodeParams(request({ body, isBase64Encoded: true }))).toThrow(RequestTooLargeError);
  });

  it('merges v1 query parameters with the form body, the body winning', () => {
    expect(decodeParams(request({ query: 'a=1&b=1', body: 'b=2' }))).toEqual({ a: '1', b: '2' });
  });
});
