import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import type { Expander } from '#shared/expansion/resolver.ts';
import { serveRequest, type PipelinePorts } from '#shared/http/handler.ts';
import { maxPageBytes, v1List, v1ListObject } from '#shared/http/pagination.ts';
import { expandParam, v1ListParams } from '#shared/http/params.ts';
import { createPlatform, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import type { Scope } from '#shared/platform/types.ts';
import { apiGatewayEvent } from '../support/api-gateway-event.ts';
import { fakeAccountSecretStore, fakeIdempotencyStore, fakePlatformStore } from '../support/fakes.ts';

const params = z.strictObject({ ...v1ListParams, expand: expandParam(listOf('product')).optional() });
const response = v1ListObject(z.object({ id: z.string(), object: z.literal('product'), default_price: z.unknown() }));
const products = ['prod_5', 'prod_4', 'prod_3', 'prod_2', 'prod_1'].map((id) => ({ id, object: 'product' as const, default_price: `price_${id}` }));

describe('expand[] in the v1 request pipeline', () => {
  let ports: PipelinePorts;
  let platform: CreatedPlatform;
  const scopes: Scope[] = [];
  /** Expands each default price into an object of a little over a quarter of the page budget. */
  const growing: Expander = async (scope, body) => {
    scopes.push(scope);
    for (const product of (body as { data: Array<{ default_price: unknown }> }).data) {
      product.default_price = { id: String(product.default_price), blob: '"'.repeat(maxPageBytes / 16) };
    }
    return body;
  };
  beforeAll(async () => {
    const platformStore = fakePlatformStore();
    platform = await createPlatform(platformStore);
    ports = {
      platformStore,
      idempotencyStore: fakeIdempotencyStore(),
      secrets: fakeAccountSecretStore(),
      maxBodyBytes: 1024,
      rateLimiter: async () => undefined,
      rateLimits: { perKey: { live: 100, test: 100 }, meterEvents: { live: 1000, test: 1000 }, meterEventStream: 10_000 },
    };
  });

  const call = (query: string) =>
    serveRequest(
      apiGatewayEvent({ method: 'GET', path: '/v1/products', headers: { authorization: `Bearer ${platform.secret_key}` }, query }),
      { params, response, expand: growing },
      async ({ params: given }) => ({ body: v1List('/v1/products', { items: structuredClone(products), hasMore: false }, given) }),
      ports,
    ).then((result) => ({ ...result, json: JSON.parse(result.body!) }));

  it('expands in the caller’s scope, then cuts a page its expansions made too large as any page is cut', async () => {
    // When a page of five small products expands into objects of a quarter of the budget each
    const forward = await call('expand[]=data.default_price');
    // Then the expander ran in the caller's scope, and the page kept the three nearest its cursor, with has_more
    expect(scopes.at(-1)).toEqual({ accountId: platform.account, livemode: false });
    expect(forward.statusCode).toBe(200);
    expect(forward.json.data.map((product: { id: string }) => product.id)).toEqual(['prod_5', 'prod_4', 'prod_3']);
    expect(forward.json.has_more).toBe(true);
    // And a backward page keeps the three nearest its cursor
    const backward = await call('expand[]=data.default_price&ending_before=prod_0');
    expect(backward.json.data.map((product: { id: string }) => product.id)).toEqual(['prod_3', 'prod_2', 'prod_1']);
  });

  it('does not call the expander without expand[], and refuses a path before the operation runs', async () => {
    const before = scopes.length;
    const plain = await call('');
    expect(plain.json.data).toHaveLength(5);
    expect(plain.json.has_more).toBe(false);
    expect(scopes).toHaveLength(before);
    const refused = await call('expand[0]=data.default_price&expand[1]=data.latest_invoice');
    expect(refused.statusCode).toBe(400);
    expect(refused.json.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: 'expand[1]',
      message: 'Invalid expand[1]: This property cannot be expanded (data.latest_invoice).',
    });
  });
});
