import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { responds, serveRequest, type PipelinePorts } from '#shared/http/handler.ts';
import { createPlatform, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { apiGatewayEvent } from '../../support/api-gateway-event.ts';
import { fakePipelinePorts, fakePlatformStore } from '../../support/fakes.ts';
import { useOfflineHandlerEnvironment } from '../../support/offline-env.ts';

useOfflineHandlerEnvironment();

/** A product in the newest shape, inside a list, as a v1 or v2 operation might answer it. */
const product = { id: 'prod_1', object: 'product', marketing_features: [{ name: 'Fast' }], name: 'Plan' };
const body = { object: 'list', data: [product], has_more: false, url: '/v1/products' };

describe("the request pipeline renders v1 bodies at the request's version", () => {
  let ports: PipelinePorts;
  let platform: CreatedPlatform;
  let calls = 0;
  beforeAll(async () => {
    const platformStore = fakePlatformStore();
    platform = await createPlatform(platformStore);
    ports = fakePipelinePorts(platformStore);
  });

  const call = (path: string, method: string, headers: Record<string, string>) =>
    serveRequest(
      apiGatewayEvent({
        method,
        path,
        headers: {
          authorization: `Bearer ${platform.secret_key}`,
          ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...headers,
        },
        body: method === 'POST' ? '' : undefined,
      }),
      { summary: 'A test operation', params: z.strictObject({}), response: responds<z.ZodUnknown>() },
      async () => {
        calls++;
        return { body };
      },
      ports,
    ).then((result) => ({ ...result, json: JSON.parse(result.body!) }));

  it('renders nested objects at the named version and says which in Service-Version', async () => {
    const old = await call('/v1/products', 'GET', { 'stripe-version': '2023-10-16' });
    expect(old.headers?.['Service-Version']).toBe('2023-10-16');
    expect(old.json.data[0]).toEqual({ id: 'prod_1', object: 'product', features: [{ name: 'Fast' }], name: 'Plan' });
    const current = await call('/v1/products', 'GET', { 'service-version': '2024-04-10' });
    expect(current.json).toEqual(body);
    const unnamed = await call('/v1/products', 'GET', {});
    expect(unnamed.headers?.['Service-Version']).toBe('2025-05-28.basil');
    expect(unnamed.json).toEqual(body);
  });

  it('leaves v2 bodies unversioned, echoing the version named', async () => {
    const v2 = await call('/v2/test/things', 'GET', { 'stripe-version': '2023-10-16' });
    expect(v2.headers?.['Service-Version']).toBe('2023-10-16');
    expect(v2.json).toEqual(body);
  });

  it('replays what it rendered the first time under an Idempotency-Key, whatever version the retry names', async () => {
    calls = 0;
    const first = await call('/v1/products', 'POST', { 'stripe-version': '2023-10-16', 'idempotency-key': 'key-1' });
    const retry = await call('/v1/products', 'POST', { 'stripe-version': '2026-10-28.endive', 'idempotency-key': 'key-1' });
    expect(calls).toBe(1);
    expect(retry.headers?.['Idempotent-Replayed']).toBe('true');
    expect(retry.headers?.['Service-Version']).toBe('2023-10-16');
    expect(retry.json).toEqual(first.json);
    expect(retry.json.data[0].features).toEqual([{ name: 'Fast' }]);
  });

  it('refuses an unknown version before running the operation, as the reference does', async () => {
    calls = 0;
    const refused = await call('/v1/products', 'GET', { 'service-version': '2023-10-17' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json.error).toMatchObject({ type: 'invalid_request_error', message: 'Invalid Service API version: 2023-10-17' });
    expect(calls).toBe(0);
  });
});
