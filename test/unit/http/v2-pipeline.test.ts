import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { responds, serveRequest, type ApiRequest, type PipelinePorts } from '#shared/http/handler.ts';
import { integerParam } from '#shared/wire/params.ts';
import { createPlatform, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { apiGatewayEvent } from '../../support/api-gateway-event.ts';
import { fakePipelinePorts, fakePlatformStore } from '../../support/fakes.ts';
import { useOfflineHandlerEnvironment } from '../../support/offline-env.ts';

useOfflineHandlerEnvironment();

/** A v2-shaped operation, to drive the JSON half of the pipeline before any v2 resource exists. */
const params = z.strictObject({
  name: z.string().optional(),
  webhook_endpoint: z.strictObject({ url: z.string() }).optional(),
  include: z.array(z.enum(['webhook_endpoint.url'])).optional(),
  limit: integerParam(1, 20).optional(),
});

const response = z.object({ object: z.literal('v2.test.thing'), params: z.record(z.string(), z.unknown()) });

let seen: ApiRequest<z.output<typeof params>>[] = [];
const operation = async (request: ApiRequest<z.output<typeof params>>) => {
  seen.push(request);
  return { body: { object: 'v2.test.thing' as const, params: request.params } };
};

describe('the v2 request pipeline', () => {
  let ports: PipelinePorts;
  let platform: CreatedPlatform;
  beforeAll(async () => {
    const platformStore = fakePlatformStore();
    platform = await createPlatform(platformStore);
    ports = fakePipelinePorts(platformStore);
  });

  const call = (method: string, input: { body?: string; query?: string; headers?: Record<string, string> }) =>
    serveRequest(
      apiGatewayEvent({
        method,
        path: '/v2/test/things',
        headers: { authorization: `Bearer ${platform.secret_key}`, 'content-type': 'application/json', ...input.headers },
        body: input.body,
        query: input.query,
      }),
      { summary: 'Test a thing', params, response: responds<typeof response>() },
      operation,
      ports,
    ).then((result) => ({ ...result, json: JSON.parse(result.body!) }));

  it('takes a JSON body and renders v2 errors without param', async () => {
    seen = [];
    const ok = await call('POST', { body: '{"name":"a","webhook_endpoint":{"url":"https://x.test"}}' });
    expect(ok.statusCode).toBe(200);
    expect(seen[0]!.api).toBe('v2');

    const badJson = await call('POST', { body: '{"name":' });
    expect(badJson.statusCode).toBe(400);
    expect(Object.keys(badJson.json.error).sort()).toEqual(['code', 'message', 'type']);

    const nested = await call('POST', { body: '{"webhook_endpoint":{"url":"x","colour":"red"}}' });
    expect(nested.json.error).toMatchObject({ code: 'parameter_unknown', message: 'Received unknown parameter: webhook_endpoint.colour' });

    const wrongType = await call('POST', { body: '{"name":5}' });
    expect(wrongType.json.error.message).toContain('name');
  });

  it('reads GET parameters from the query string, even with a JSON content type and no body', async () => {
    const listed = await call('GET', { query: 'include[0]=webhook_endpoint.url&limit=5' });
    expect(listed.json.params).toEqual({ include: ['webhook_endpoint.url'], limit: 5 });
  });

  it('reads a query array sent as one plain value, or repeated, as the array, and keeps a JSON body strict', async () => {
    // When an array parameter is sent the way generic OpenAPI clients send the form style
    const one = await call('GET', { query: 'include=webhook_endpoint.url' });
    const repeated = await call('GET', { query: 'include=webhook_endpoint.url&include=webhook_endpoint.url' });
    // Then it is the array, as with the SDK's indexed form
    expect(one.json.params).toEqual({ include: ['webhook_endpoint.url'] });
    expect(repeated.json.params).toEqual({ include: ['webhook_endpoint.url', 'webhook_endpoint.url'] });

    // When a v2 JSON body gives a string where an array belongs
    const json = await call('POST', { body: '{"include":"webhook_endpoint.url"}' });
    // Then it is refused: JSON clients type their values
    expect(json.statusCode).toBe(400);
    expect(json.json.error.message).toMatch(/include/);
  });

  it('refuses a form body on v2 with 415', async () => {
    const answer = await call('POST', { body: 'name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(answer.statusCode).toBe(415);
  });

  it('answers 409 idempotency_error for a reused key with another body, on v2 too', async () => {
    await call('POST', { body: '{"name":"first"}', headers: { 'idempotency-key': 'v2-key' } });
    const replay = await call('POST', { body: '{"name":"first"}', headers: { 'idempotency-key': 'v2-key' } });
    const conflict = await call('POST', { body: '{"name":"second"}', headers: { 'idempotency-key': 'v2-key' } });
    expect(replay.headers?.['Idempotent-Replayed']).toBe('true');
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_error' });
  });
});
