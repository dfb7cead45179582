import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDeliveryChecker, openApiResponseChecker } from '../../support/openapi-responses.ts';

const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things/{id}': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            headers: { 'Request-Id': { schema: { type: 'string' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: { id: { type: 'string' }, object: { const: 'thing' } },
        required: ['id', 'object'],
        additionalProperties: false,
      },
    },
    responses: {
      NotFound: {
        description: 'no',
        content: { 'application/json': { schema: { type: 'object', required: ['error'], properties: { error: { type: 'object' } } } } },
      },
    },
  },
};
const route = { name: 'retrieveThing', method: 'GET', path: '/v1/things/{id}', handler: 'x.ts' };
const answer = (statusCode: number, body: unknown, headers: Record<string, string> = { 'Content-Type': 'application/json', 'Request-Id': 'req_1' }) => ({
  statusCode,
  headers,
  body: JSON.stringify(body),
});

describe('the OpenAPI response checker of the test stack', () => {
  it('accepts answers the document describes, through $refs to schemas and responses', () => {
    const checker = openApiResponseChecker(document);
    checker.inspect(route, answer(200, { id: 't_1', object: 'thing' }));
    checker.inspect(route, answer(404, { error: { type: 'invalid_request_error' } }));
    expect(checker.violations).toEqual([]);
  });

  it('reports an undocumented field, a missing one, an unlisted status, another media type and a missing Request-Id', () => {
    const checker = openApiResponseChecker(document);
    checker.inspect(route, answer(200, { id: 't_1', object: 'thing', PK: 'ACCOUNT#1' }));
    checker.inspect(route, answer(200, { object: 'thing' }));
    checker.inspect(route, answer(409, { error: {} }));
    checker.inspect(route, answer(200, '<p>', { 'Content-Type': 'text/html', 'Request-Id': 'req_1' }));
    checker.inspect(route, answer(200, { id: 't_1', object: 'thing' }, { 'Content-Type': 'application/json' }));
    expect(checker.violations.map((violation) => violation.problem)).toEqual([
      expect.stringContaining('must NOT have additional properties'),
      expect.stringContaining("must have required property 'id'"),
      expect.stringContaining('status 409 is not listed'),
      expect.stringContaining('content type text/html'),
      'no Request-Id header',
    ]);
  });
});

describe('the OpenAPI delivery checker of the test webhook receiver', () => {
  const check = openApiDeliveryChecker(JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')));
  const signed = { 'service-signature': 't=1,v1=abc' };
  const thin = {
    id: 'evt_1',
    object: 'v2.core.event',
    context: null,
    created: '2026-11-22T10:15:30.123Z',
    livemode: false,
    related_object: { id: 'cus_1', type: 'customer', url: '/v1/customers/cus_1' },
    type: 'v1.customer.created',
  };

  it('accepts a signed thin notification as the document describes it', () => {
    expect(check(signed, JSON.stringify(thin))).toBeUndefined();
  });

  it('reports a missing signature, an extra field, an unknown object and a v1 event without its data', () => {
    expect(check({}, JSON.stringify(thin))).toBe('no Service-Signature header');
    expect(check(signed, JSON.stringify({ ...thin, data: {} }))).toContain('must NOT have additional properties');
    expect(check(signed, JSON.stringify({ object: 'customer' }))).toContain('no webhook of the document delivers object customer');
    expect(check(signed, JSON.stringify({ id: 'evt_1', object: 'event', type: 'customer.created' }))).toContain('must have required property');
  });
});
