import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { api, newPlatform, sdk, stack } from '../support/stack.ts';

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

describe('array parameters as the document declares them (form style) and as the SDK sends them', () => {
  it('takes one plain value, a repeated name and the indexed form alike, on v1 and v2, in queries and form bodies', async () => {
    // Given a platform with two customers (two customer.created events, one customer.updated) and a pinged event destination
    const platform = await newPlatform();
    const stripe = sdk(platform.secret_key);
    const first = await stripe.customers.create({ email: 'first@example.com' });
    await stripe.customers.create({ email: 'second@example.com' });
    await stripe.customers.update(first.id, { description: 'changed' });
    const destination = await stripe.v2.core.eventDestinations.create({
      name: 'arrays',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: 'http://127.0.0.1:9/arrays' },
    });
    const ping = await stripe.v2.core.eventDestinations.ping(destination.id);
    const get = (path: string) => api('GET', path, { key: platform.secret_key });

    // When v1 events are listed by `types` as a generic OpenAPI client sends it (one value, or the name repeated), and as the SDK does
    const one = await get('/v1/events?types=customer.updated');
    const repeated = await get('/v1/events?types=customer.created&types=customer.updated');
    const indexed = await get('/v1/events?types[0]=customer.updated');
    const viaSdk = await stripe.events.list({ types: ['customer.updated'] });

    // Then each is the filter it says
    expect(one.status).toBe(200);
    expect(one.body.data.map((event: any) => event.type)).toEqual(['customer.updated']);
    expect(repeated.body.data.map((event: any) => event.type)).toEqual(['customer.updated', 'customer.created', 'customer.created']);
    expect(indexed.body.data).toEqual(one.body.data);
    expect(viaSdk.data.map((event) => event.id)).toEqual(one.body.data.map((event: any) => event.id));

    // When v2 lists take `types` and `include` with one plain value
    const thin = await get('/v2/core/events?types=v2.core.event_destination.ping');
    const included = await get('/v2/core/event_destinations?include=webhook_endpoint.url');

    // Then they are read as arrays of one
    expect(thin.status).toBe(200);
    expect(thin.body.data.map((event: any) => event.id)).toEqual([ping.id]);
    expect(included.status).toBe(200);
    expect(included.body.data[0].webhook_endpoint.url).toBe('http://127.0.0.1:9/arrays');

    // When a v1 form body sends an array field and `expand` with one plain value
    const endpoint = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: 'url=http%3A%2F%2F127.0.0.1%3A9%2Fform&enabled_events=customer.created',
    });
    const expanded = await api('POST', `/v1/customers/${first.id}`, { key: platform.secret_key, form: 'expand=sources&description=again' });

    // Then they are arrays too
    expect(endpoint.status).toBe(200);
    expect(endpoint.body.enabled_events).toEqual(['customer.created']);
    expect(expanded.status).toBe(200);
    expect(expanded.body.sources).toMatchObject({ object: 'list', data: [] });
  });

  it('keeps v2 JSON bodies strict: a string where an array belongs is refused, naming the field', async () => {
    // When a v2 create sends `enabled_events` as a string
    const platform = await newPlatform();
    const answer = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      json: {
        name: 'strict',
        type: 'webhook_endpoint',
        event_payload: 'thin',
        enabled_events: 'v2.core.event_destination.ping',
        webhook_endpoint: { url: 'http://127.0.0.1:9/s' },
      },
    });

    // Then it is a 400 that names it
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('enabled_events');
  });

  it('declares those parameters in the form style in the document it serves', async () => {
    const served = (await api('GET', '/openapi.json')).body;
    const types = served.paths['/v1/events'].get.parameters.find((parameter: any) => parameter.name === 'types');
    expect(types).toMatchObject({ in: 'query', style: 'form', explode: true, description: expect.any(String) });
  });
});
