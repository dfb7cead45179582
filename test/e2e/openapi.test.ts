import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { api, newPlatform, stack } from '../support/stack.ts';

const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));

describe('GET /openapi.json', () => {
  it('serves the committed document without an API key, with this service as its server', async () => {
    // When the document is fetched with no key
    const answer = await api('GET', '/openapi.json');

    // Then it is the committed document, pointing at the service it came from
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('request-id')).toMatch(/^req_/);
    const { servers, ...rest } = answer.body;
    const { servers: _committedServers, ...committedRest } = committed;
    expect(rest).toEqual(committedRest);
    expect(servers).toEqual([{ url: stack.baseUrl }]);
  });

  it('answers the same to any key, a bad one included, and shows none of an account’s secrets', async () => {
    // Given a platform with keys
    const platform = await newPlatform();

    // When the document is fetched with its secret key, a made-up key and many times over
    const answers = await Promise.all([
      api('GET', '/openapi.json', { key: platform.secret_key }),
      api('GET', '/openapi.json', { key: 'sk_test_not_a_key' }),
      ...Array.from({ length: 30 }, () => api('GET', '/openapi.json')),
    ]);

    // Then every answer is the document, never a 401 or a 429, and no key appears in it
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.openapi).toBe('3.1.0');
      const text = JSON.stringify(answer.body);
      expect(text).not.toContain(platform.secret_key);
      expect(text).not.toContain(platform.publishable_key);
    }
  });

  it('takes only GET', async () => {
    const answer = await api('POST', '/openapi.json', { form: '' });
    expect(answer.status).toBe(405);
  });
});
