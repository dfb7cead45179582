import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { invoke } from '../support/handler-harness.ts';
import { newPlatform } from '../support/stack.ts';

const create = 'functions/http/v1/webhook-endpoints/create.ts';
const retrieve = 'functions/http/v1/webhook-endpoints/retrieve.ts';
const list = 'functions/http/v1/webhook-endpoints/list.ts';

describe('webhook endpoint handlers invoked with API Gateway events', () => {
  let platform: CreatedPlatform;
  let auth: Record<string, string>;
  beforeAll(async () => {
    platform = await newPlatform();
    auth = { authorization: `Bearer ${platform.secret_key}` };
  });

  it('creates from a form body and retrieves by path parameter', async () => {
    // Given a create event with a form body
    const created = await invoke(create, {
      method: 'POST',
      path: '/v1/webhook_endpoints',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=http%3A%2F%2F127.0.0.1%3A9%2Fh&enabled_events[0]=customer.created&metadata[k]=v',
    });

    // When it is retrieved through the retrieve handler
    const retrieved = await invoke(retrieve, {
      method: 'GET',
      path: `/v1/webhook_endpoints/${created.json.id}`,
      routeKey: 'GET /v1/webhook_endpoints/{id}',
      pathParameters: { id: created.json.id },
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
    });

    // Then
    expect(created.statusCode).toBe(200);
    expect(created.headers).toMatchObject({ 'Content-Type': 'application/json', 'Request-Id': expect.stringMatching(/^req_/) });
    expect(retrieved.json).toMatchObject({ id: created.json.id, metadata: { k: 'v' }, enabled_events: ['customer.created'] });
    expect(retrieved.json.secret).toBeUndefined();
  });

  it('reads a base64-encoded body as API Gateway delivers binary content', async () => {
    const body = Buffer.from('url=http%3A%2F%2F127.0.0.1%3A9%2Fb64&enabled_events[0]=*').toString('base64');
    const created = await invoke(create, {
      method: 'POST',
      path: '/v1/webhook_endpoints',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body,
      isBase64Encoded: true,
    });
    expect(created.json.url).toBe('http://127.0.0.1:9/b64');
  });

  it('lists with a bracket-notation query string', async () => {
    const listed = await invoke(list, { method: 'GET', path: '/v1/webhook_endpoints', query: 'limit=1&expand[]=', headers: auth });
    expect(listed.statusCode).toBe(400);
    const ok = await invoke(list, { method: 'GET', path: '/v1/webhook_endpoints', query: 'limit=1', headers: auth });
    expect(ok.json).toMatchObject({ object: 'list', url: '/v1/webhook_endpoints' });
    expect(ok.json.data).toHaveLength(1);
  });
});

describe('the fallback handler', () => {
  it('answers 405 with Allow for a known path and 404 otherwise, in the v1 or v2 error shape', async () => {
    const wrongMethod = await invoke('functions/http/fallback.ts', { method: 'PATCH', path: '/v1/webhook_endpoints/we_1', routeKey: '$default' });
    const unknownV2 = await invoke('functions/http/fallback.ts', { method: 'GET', path: '/v2/core/unknown', routeKey: '$default' });

    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers?.Allow).toBe('DELETE, GET, POST');
    expect(wrongMethod.json.error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed', param: null });
    expect(unknownV2.statusCode).toBe(404);
    expect(unknownV2.json.error).toEqual({
      type: 'invalid_request_error',
      code: 'unrecognized_url',
      message: 'Unrecognized request URL (GET: /v2/core/unknown).',
    });
  });
});
