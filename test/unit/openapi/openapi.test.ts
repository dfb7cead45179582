import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeResponses } from '#functions/responses.ts';
import { routes } from '#functions/routes.ts';
import { buildOpenApiDocument, offlineHandlerEnvironment, renderOpenApiDocument } from '#shared/openapi/document.ts';

type JsonObject = Record<string, any>;

const committedFile = new URL('../../../docs/openapi.json', import.meta.url);
let document: JsonObject;

beforeAll(async () => {
  for (const [name, value] of Object.entries(offlineHandlerEnvironment)) process.env[name] ??= value;
  document = await buildOpenApiDocument(
    routes,
    routeResponses,
    async (entry) => ((await import(pathToFileURL(resolve(entry)).href)) as { handler?: unknown }).handler,
  );
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
    expect(expand).toMatchObject({ in: 'query', style: 'form', explode: true });
  });

  it('declares objects in bracket notation (deepObject) and arrays of plain values in the form style, in queries and forms alike', () => {
    // Given the parameters of a v1 list, a v2 list and a v1 form
    const parameter = (path: string, name: string) => document.paths[path].get.parameters.find((candidate: JsonObject) => candidate.name === name);
    const subscriptionForm = document.paths['/v1/subscriptions'].post.requestBody.content['application/x-www-form-urlencoded'];

    // Then `types=a&types=b` (and `types=a` alone) is what a generic client sends for an array, `created[gte]=…` for an object
    expect(parameter('/v1/events', 'types')).toMatchObject({ style: 'form', explode: true });
    expect(parameter('/v2/core/events', 'types')).toMatchObject({ style: 'form', explode: true });
    expect(parameter('/v2/core/event_destinations', 'include')).toMatchObject({ style: 'form', explode: true });
    expect(parameter('/v1/prices', 'lookup_keys')).toMatchObject({ style: 'form', explode: true });
    expect(parameter('/v1/events', 'created')).toMatchObject({ style: 'deepObject', explode: true });
    expect(document.paths['/v1/webhook_endpoints'].post.requestBody.content['application/x-www-form-urlencoded'].encoding.enabled_events).toEqual({
      style: 'form',
      explode: true,
    });
    // And an array of objects keeps bracket notation (`items[0][price]=…`), as does a map
    expect(subscriptionForm.encoding.items).toEqual({ style: 'deepObject', explode: true });
    expect(subscriptionForm.encoding.metadata).toEqual({ style: 'deepObject', explode: true });
  });

  it('marks a request body required exactly where it has required fields', () => {
    const body = (path: string) => document.paths[path].post.requestBody;
    expect(body('/v2/core/event_destinations').required).toBe(true);
    expect(body('/v1/webhook_endpoints').required).toBe(true);
    expect(body('/v1/prices').required).toBe(true);
    expect(body('/v1/customers').required).toBe(false);
    expect(body('/v1/customers/{id}').required).toBe(false);
  });

  it('gives every operation and webhook a summary, and a description wherever one is declared', () => {
    // When the operations are read as a documentation renderer reads them
    const operations = [
      ...Object.values(document.paths as JsonObject).flatMap((item) => Object.values(item as JsonObject)),
      ...Object.values(document.webhooks as JsonObject).flatMap((item) => Object.values(item as JsonObject)),
    ];

    // Then each has a short summary of its own (a route added without one fails here: give its handler a `summary`)
    const unsummarized = operations.filter((operation) => typeof operation.summary !== 'string' || operation.summary.trim() === '');
    expect(
      unsummarized.map((operation) => operation.operationId),
      'operations without a summary',
    ).toEqual([]);
    const summaries = operations.map((operation) => operation.summary);
    expect(new Set(summaries).size, 'two operations share a summary').toBe(summaries.length);
    for (const summary of summaries) expect(summary.length, summary).toBeLessThanOrEqual(60);
    expect(document.paths['/v1/customers'].post).toMatchObject({ summary: 'Create a customer', description: expect.stringContaining('tok_') });
  });

  it('describes every parameter, every body field and every top-level field of every success body', () => {
    // When each operation's parameters, request body fields and success body fields are read
    const undescribed: string[] = [];
    for (const item of Object.values(document.paths as JsonObject)) {
      for (const operation of Object.values(item as JsonObject) as JsonObject[]) {
        for (const parameter of (operation.parameters ?? []) as JsonObject[]) {
          const resolved = parameter.$ref ? resolveRef(parameter.$ref) : parameter;
          if (!resolved.description) undescribed.push(`${operation.operationId} ${resolved.in} parameter ${resolved.name}`);
        }
        for (const media of Object.values((operation.requestBody?.content ?? {}) as JsonObject)) {
          for (const [name, schema] of propertiesOf(media.schema)) if (!described(schema)) undescribed.push(`${operation.operationId} body field ${name}`);
        }
        for (const [status, response] of Object.entries(operation.responses as JsonObject)) {
          if (status >= '300' || response.$ref) continue;
          for (const [name, schema] of propertiesOf(response.content?.['application/json']?.schema)) {
            if (!described(schema)) undescribed.push(`${operation.operationId} ${status} field ${name}`);
          }
        }
      }
    }

    // Then none is left bare (a field added without one fails here: give its zod schema a `.describe(…)`)
    expect(undescribed).toEqual([]);
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

/** `#/components/schemas/Customer` → the object it names. */
const resolveRef = (ref: string): JsonObject =>
  ref
    .split('/')
    .slice(1)
    .reduce((node: JsonObject, key) => node[key], document);

const resolveSchema = (schema: JsonObject | undefined): JsonObject | undefined =>
  schema?.$ref && !schema.description ? resolveSchema(resolveRef(schema.$ref)) : schema;

const described = (schema: JsonObject): boolean => typeof resolveSchema(schema)?.description === 'string' && resolveSchema(schema)!.description.trim() !== '';

/** The fields of an object schema, of each member of a union included (a token is a card or a bank account). */
function propertiesOf(schema: JsonObject | undefined): [string, JsonObject][] {
  const resolved = resolveSchema(schema);
  if (!resolved) return [];
  const members = [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])] as JsonObject[];
  return [...Object.entries((resolved.properties ?? {}) as Record<string, JsonObject>), ...members.flatMap(propertiesOf)];
}

const isEmpty = (schema: unknown) => schema === undefined || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0);
