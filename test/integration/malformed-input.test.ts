import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform } from '../support/stack.ts';

const v1Shape = (body: any) => {
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof body.error.message).toBe('string');
};

describe('malformed input always gets a documented 4xx', () => {
  let platform: CreatedPlatform;
  beforeAll(async () => {
    platform = await newPlatform();
  });

  const cases: Array<[string, () => Promise<{ status: number; body: any }>, number]> = [
    [
      'a JSON body on a v1 endpoint',
      () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, body: '{"url":', headers: { 'content-type': 'application/json' } }),
      415,
    ],
    [
      'a body with no content type',
      () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, body: 'url=x', headers: { 'content-type': 'text/plain' } }),
      415,
    ],
    ['deep nesting', () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: 'metadata[a][b][c][d][e][f][g][h]=1' }), 400],
    [
      'too many parameters',
      () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: Array.from({ length: 1200 }, (_, i) => `m${i}=1`).join('&') }),
      400,
    ],
    ['a 2 MB body', () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: `description=${'x'.repeat(2 * 1024 * 1024)}` }), 413],
    ['an object where a string belongs', () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: 'url[a]=b&enabled_events[0]=*' }), 400],
    // A plain `enabled_events=*` is an array of one (the form style the OpenAPI document declares); a map is not an array.
    [
      'a map where an array belongs',
      () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: 'url=http://x.test&enabled_events[a]=*' }),
      400,
    ],
    [
      'an unknown parameter',
      () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: 'url=http://x.test&enabled_events[0]=*&foo=1' }),
      400,
    ],
    ['broken percent-encoding', () => api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: 'url=%E0%A4%A&enabled_events[0]=*' }), 400],
    ['a limit out of range', () => api('GET', '/v1/webhook_endpoints?limit=1000', { key: platform.secret_key }), 400],
    ['both cursors', () => api('GET', '/v1/webhook_endpoints?starting_after=we_1&ending_before=we_2', { key: platform.secret_key }), 400],
    ['an expand of a field that cannot be expanded', () => api('GET', '/v1/webhook_endpoints/we_1?expand[0]=secret', { key: platform.secret_key }), 400],
    ['a malformed Service-Version', () => api('GET', '/v1/webhook_endpoints', { key: platform.secret_key, headers: { 'service-version': 'yesterday' } }), 400],
  ];

  it.each(cases)('%s', async (_name, call, status) => {
    const answer = await call();
    expect(answer.status).toBe(status);
    v1Shape(answer.body);
  });

  it('refuses a missing, unknown or publishable key with the error body', async () => {
    const missing = await api('GET', '/v1/webhook_endpoints');
    const unknown = await api('GET', '/v1/webhook_endpoints', { key: 'sk_test_unknownunknownunknown' });
    const publishable = await api('GET', '/v1/webhook_endpoints', { key: platform.publishable_key });
    expect([missing.status, unknown.status, publishable.status]).toEqual([401, 401, 403]);
    v1Shape(missing.body);
    expect(missing.body.error.type).toBe('authentication_error');
    expect(unknown.body.error.message).not.toContain('unknownunknownunknown');
  });

  it('answers unknown URLs with 404 and known URLs with the wrong method with 405 and Allow', async () => {
    const unknown = await api('GET', '/v1/nothing_here', { key: platform.secret_key });
    const wrongMethod = await api('PUT', '/v1/webhook_endpoints', { key: platform.secret_key });
    const v2Unknown = await api('GET', '/v2/core/nothing', { key: platform.secret_key });

    expect(unknown.status).toBe(404);
    v1Shape(unknown.body);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    expect(v2Unknown.status).toBe(404);
    expect(Object.keys(v2Unknown.body.error).sort()).toEqual(['code', 'message', 'type']);
  });

  it('puts a Request-Id on every response and echoes a valid Service-Version', async () => {
    const ok = await api('GET', '/v1/webhook_endpoints', { key: platform.secret_key, headers: { 'service-version': '2026-09-30.endive' } });
    const failed = await api('GET', '/v1/webhook_endpoints');
    const unmatched = await api('GET', '/nowhere');
    for (const answer of [ok, failed, unmatched]) expect(answer.headers.get('request-id')).toMatch(/^req_/);
    expect(ok.headers.get('service-version')).toBe('2026-09-30.endive');
  });
});

describe('inputs past the table’s limits are bounded before they reach a key', () => {
  let platform: CreatedPlatform;
  beforeAll(async () => {
    platform = await newPlatform();
  });
  const long = (length: number) => 'a'.repeat(length);
  const fifty = (prefix: string) => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${prefix}${i}`, 'v']));
  const form = (map: Record<string, string>) =>
    Object.entries(map)
      .map(([key, value]) => `metadata[${key}]=${value}`)
      .join('&');

  it('answers ids, cursors, references and headers too long for a key with a 4xx in the documented shape', async () => {
    const answers = await Promise.all([
      api('GET', `/v1/customers/cus_${long(2_100)}`, { key: platform.secret_key }),
      api('GET', `/v1/customers?starting_after=cus_${long(3_000)}`, { key: platform.secret_key }),
      api('GET', '/v1/customers', { key: platform.secret_key, headers: { 'service-context': `acct_${long(3_000)}` } }),
      api('GET', '/v1/customers', { key: `sk_test_${long(3_000)}` }),
      api('POST', '/v1/subscriptions', { key: platform.secret_key, form: `customer=cus_${long(3_000)}&items[0][price]=price_1` }),
      api('GET', '/v1/subscriptions?limit=NaN', { key: platform.secret_key }),
      api('GET', '/v1/subscriptions?limit=1e400', { key: platform.secret_key }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 400, 403, 401, 400, 400, 400]);
    for (const answer of answers) {
      v1Shape(answer.body);
      expect(answer.body.error.message.length).toBeLessThan(400);
    }
    const v2 = await api('GET', `/v2/core/accounts/acct_${long(2_100)}/persons`, { key: platform.secret_key });
    expect(v2.status).toBe(404);
    expect(v2.body.error).toMatchObject({ type: 'invalid_request_error', code: 'not_found' });
  });

  it('keeps metadata at 50 keys after merging: a second update of 50 new keys is refused and changes nothing', async () => {
    const created = await api('POST', '/v1/customers', { key: platform.secret_key, form: form(fifty('a')) });
    expect(created.status).toBe(200);
    const second = await api('POST', `/v1/customers/${created.body.id}`, { key: platform.secret_key, form: form(fifty('b')) });
    expect(second.status).toBe(400);
    expect(second.body.error).toMatchObject({ param: 'metadata', code: 'parameter_invalid' });
    const after = await api('GET', `/v1/customers/${created.body.id}`, { key: platform.secret_key });
    expect(after.body.metadata).toEqual(fifty('a'));

    const account = await api('POST', '/v2/core/accounts', { key: platform.secret_key, json: { metadata: fifty('a') } });
    const accountSecond = await api('POST', `/v2/core/accounts/${account.body.id}`, { key: platform.secret_key, json: { metadata: fifty('b') } });
    expect(accountSecond.status).toBe(400);
    expect(accountSecond.body.error.code).toBe('parameter_invalid');
  });

  it('refuses JSON arrays longer than form bodies may send', async () => {
    const answer = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      json: { name: 'x', enabled_events: Array.from({ length: 300 }, () => 'v2.core.event_destination.ping') },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'parameter_invalid' });
  });
});
