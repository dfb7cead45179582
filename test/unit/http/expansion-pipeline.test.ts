import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import type { Expander } from '#shared/expansion/resolver.ts';
import { responds, serveRequest, type PipelinePorts } from '#shared/http/handler.ts';
import { maxPageBytes, v1List, v1ListObject, v1SearchResult, type V1SearchResultObject } from '#shared/wire/pagination.ts';
import { expandParam, v1ListParams } from '#shared/wire/params.ts';
import { searchParams } from '#shared/search/schemas.ts';
import { createPlatform, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import type { Scope } from '#shared/platform/types.ts';
import { apiGatewayEvent } from '../../support/api-gateway-event.ts';
import { fakePipelinePorts, fakePlatformStore } from '../../support/fakes.ts';
import { useOfflineHandlerEnvironment } from '../../support/offline-env.ts';

useOfflineHandlerEnvironment();

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
    ports = fakePipelinePorts(platformStore);
    // The secret its page tokens are signed with, which an account gets with its first POST (whichever test runs first)
    await ports.secrets.keyFor(platform.account);
  });

  const call = (query: string) =>
    serveRequest(
      apiGatewayEvent({ method: 'GET', path: '/v1/products', headers: { authorization: `Bearer ${platform.secret_key}` }, query }),
      { summary: 'List products', params, response: responds<typeof response>(), expand: growing },
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

  it('expands before the version chain renders the body, so expanded objects are rendered at the request’s version, and a replay answers the same', async () => {
    // Given an operation answering a price whose product the expander fills in the newest shape
    let operations = 0;
    let expansions = 0;
    const expandProduct: Expander = async (_scope, body) => {
      expansions++;
      (body as { product: unknown }).product = { id: 'prod_1', object: 'product', marketing_features: [{ name: 'Fast' }] };
      return body;
    };
    const create = (version: string) =>
      serveRequest(
        apiGatewayEvent({
          method: 'POST',
          path: '/v1/prices',
          headers: {
            authorization: `Bearer ${platform.secret_key}`,
            'content-type': 'application/x-www-form-urlencoded',
            'idempotency-key': 'expand-then-render',
            'stripe-version': version,
          },
          body: 'expand[]=product',
        }),
        {
          summary: 'Create a price',
          params: z.strictObject({ expand: expandParam('price').optional() }),
          response: responds<z.ZodUnknown>(),
          expand: expandProduct,
        },
        async () => {
          operations++;
          return { body: { id: 'price_1', object: 'price', product: 'prod_1' } };
        },
        ports,
      ).then((result) => ({ ...result, json: JSON.parse(result.body!) }));

    // When it is asked at a version from before `marketing_features`
    const first = await create('2023-10-16');

    // Then the expanded product is rendered at that version
    expect(first.json.product).toEqual({ id: 'prod_1', object: 'product', features: [{ name: 'Fast' }] });
    expect(first.headers?.['Service-Version']).toBe('2023-10-16');
    // And a retry naming another version replays the rendered, expanded body without running anything again
    const retry = await create('2024-04-10');
    expect(retry.json).toEqual(first.json);
    expect(retry.headers?.['Idempotent-Replayed']).toBe('true');
    expect(retry.headers?.['Service-Version']).toBe('2023-10-16');
    expect({ operations, expansions }).toEqual({ operations: 1, expansions: 1 });
  });

  it('expands a search result’s data, and cuts one its expansions made too large with a next_page that resumes after the last object kept', async () => {
    // Given a search whose five products expand into objects of a quarter of the budget each
    const search = (query: string) =>
      serveRequest(
        apiGatewayEvent({ method: 'GET', path: '/v1/products/search', headers: { authorization: `Bearer ${platform.secret_key}` }, query }),
        {
          summary: 'Search products',
          params: searchParams('product'),
          response: responds<V1SearchResultObject<z.ZodUnknown>>(),
          v1Search: true,
          expand: growing,
        },
        async ({ params: given, searchPages }) => {
          const after = searchPages!.open(given.page, given.query);
          const items = structuredClone(products).filter((product) => after === undefined || product.id < after);
          return { body: v1SearchResult('/v1/products/search', { items, resumeAfter: null }, items, (id) => searchPages!.seal(id, given.query)) };
        },
        ports,
      ).then((result) => ({ ...result, json: JSON.parse(result.body!) }));

    // When the first page is asked with expand[]=data.default_price
    const first = await search(`query=${encodeURIComponent("name:'x'")}&expand[]=data.default_price`);

    // Then the expanded objects are in data, three kept, and next_page continues after the third
    expect(first.statusCode).toBe(200);
    expect(first.json.object).toBe('search_result');
    expect(first.json.data.map((product: { id: string; default_price: { id: string } }) => [product.id, product.default_price.id])).toEqual([
      ['prod_5', 'price_prod_5'],
      ['prod_4', 'price_prod_4'],
      ['prod_3', 'price_prod_3'],
    ]);
    expect(first.json.has_more).toBe(true);
    const next = await search(`query=${encodeURIComponent("name:'x'")}&expand[]=data.default_price&page=${encodeURIComponent(first.json.next_page)}`);
    expect(next.json.data.map((product: { id: string }) => product.id)).toEqual(['prod_2', 'prod_1']);
    expect(next.json).toMatchObject({ has_more: false, next_page: null });
    // And a path its objects do not declare is refused with the list's hint
    const refused = await search(`query=${encodeURIComponent("name:'x'")}&expand[]=default_price`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json.error.message).toBe(
      "Invalid expand[0]: This property cannot be expanded (default_price). You may want to try expanding 'data.default_price' instead.",
    );
  });
});
