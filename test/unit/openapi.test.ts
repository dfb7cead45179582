import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { buildOpenApiDocument, offlineHandlerEnvironment, renderOpenApiDocument } from '#shared/openapi/document.ts';

type JsonObject = Record<string, any>;

const committedFile = new URL('../../docs/openapi.json', import.meta.url);
let document: JsonObject;

beforeAll(async () => {
  for (const [name, value] of Object.entries(offlineHandlerEnvironment)) process.env[name] ??= value;
  document = await buildOpenApiDocument(routes, async (entry) => ((await import(pathToFileURL(resolve(entry)).href)) as { handler?: unknown }).handler);
}, 60_000);

describe('the OpenAPI document', () => {
  it('is committed as npm run openapi writes it (run it after changing a route, a handler or a schema)', () => {
    expect(readFileSync(committedFile, 'utf8') === renderOpenApiDocument(document), 'docs/openapi.json is out of date: run `npm run openapi`').toBe(true);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has one operation per route of the route table, named after it', () => {
    const operations = Object.entries(document.paths as JsonObject).flatMap(([path, item]) =>
      Object.entries(item as JsonObject).map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`),
    );
    expect(operations.sort()).toEqual(routes.map((route) => `${route.method} ${route.path} ${route.name}`).sort());
  });

  it('describes the success body of every API route', () => {
    const undescribed = Object.values(document.paths as JsonObject)
      .flatMap((item) => Object.values(item as JsonObject))
      .filter((operation) =>
        Object.entries(operation.responses).some(
          ([status, response]: [string, any]) => status < '300' && !response.content?.['text/html'] && isEmpty(response.content?.['application/json']?.schema),
        ),
      )
      .map((operation) => operation.operationId);
    expect(undescribed).toEqual([]);
  });

  it('takes the path parameters of each route, the headers of the conventions and the right credential', () => {
    const customer = document.paths['/v1/customers/{id}/sources/{source_id}'].post;
    expect(customer.parameters.filter((parameter: JsonObject) => parameter.in === 'path').map((parameter: JsonObject) => parameter.name)).toEqual([
      'id',
      'source_id',
    ]);
    expect(customer.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(customer.security).toEqual([{ secretKey: [] }]);
    expect(document.paths['/v1/tokens'].post.security).toEqual([{ secretKey: [] }, { publishableKey: [] }]);
    expect(document.paths['/v2/billing/meter_event_stream'].post.security).toEqual([{ meterEventSession: [] }]);
    expect(document.paths['/hosted/account_links/{secret}'].get.security).toEqual([]);
    expect(document.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('takes v1 bodies as forms in bracket notation and v2 bodies as JSON', () => {
    const v1 = document.paths['/v1/customers'].post.requestBody.content['application/x-www-form-urlencoded'];
    expect(v1.encoding.metadata).toEqual({ style: 'deepObject', explode: true });
    expect(v1.schema.additionalProperties).toBe(false);
    expect(document.paths['/v2/core/event_destinations'].post.requestBody.content['application/json'].schema.properties.name).toBeDefined();
    const expand = document.paths['/v1/customers'].get.parameters.find((parameter: JsonObject) => parameter.name === 'expand');
    expect(expand).toMatchObject({ in: 'query', style: 'deepObject', explode: true });
  });

  it('answers errors in the v1 and v2 error shapes', () => {
    expect(document.paths['/v1/customers'].get.responses['404']).toEqual({ $ref: '#/components/responses/V1Error404' });
    expect(document.paths['/v2/core/accounts'].get.responses['404']).toEqual({ $ref: '#/components/responses/V2Error404' });
    expect(document.components.schemas.V1ErrorBody.properties.error.required).toEqual(expect.arrayContaining(['type', 'code', 'message', 'param']));
  });

  it('holds no secret of the running service (it is served without a key)', () => {
    const text = renderOpenApiDocument(document);
    expect(text).not.toMatch(/sk_(test|live)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{10,}/);
    for (const value of Object.values(offlineHandlerEnvironment)) if (value.startsWith('http')) expect(text).not.toContain(value);
  });
});

const isEmpty = (schema: unknown) => schema === undefined || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0);
