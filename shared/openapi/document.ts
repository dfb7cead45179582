import type * as z from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponseObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import type { Route } from '#shared/http/route.ts';
import { defaultServiceVersion, latestServiceVersion } from '#shared/wire/api-version.ts';
import { contractOf, type Credential, type HandlerContract } from '#shared/http/contract.ts';
import { snapshotEventObject, thinNotificationObject } from '#shared/events/objects.ts';
import { v1ErrorBody, v2ErrorBody } from '#shared/http/error-mapping.ts';

/**
 * The OpenAPI 3.1 document of the API, built from the route table (paths), the response table (functions/responses.ts) and the
 * contract each handler module attaches to its `handler` (request schema, status, credential). Nothing here
 * lists routes or fields: a route added to the table with its handler is in the document.
 */

/** Loads a route's handler module and answers its exported `handler`. */
export type LoadHandler = (entry: string) => Promise<unknown>;

type Method = 'get' | 'post' | 'delete';
type JsonObject = Record<string, unknown>;

/** The statuses an API route may answer with an error body (shared/http/error-mapping.ts), and what each means. */
const errorStatuses: Record<string, string> = {
  '400': 'Invalid request: a parameter is missing, unknown or invalid (`param` names it), or an idempotency key was reused (v1).',
  '401': 'No valid API key (or, for the meter event stream, an expired session).',
  '402': 'The card was declined.',
  '403': 'The key may not do this: a publishable key, or a `Service-Context` account it does not control.',
  '404': 'No such object in this account and mode.',
  '409': 'A conflict: the object changed, or a request with the same idempotency key is in flight or differed (v2).',
  '413': 'The request body is too large.',
  '415': 'The body is not in the encoding the API generation takes (form on v1, JSON on v2).',
  '429': 'Too many requests for this key; retry after `Retry-After` seconds.',
  '500': 'An unexpected error; the message quotes the request id.',
};

const htmlStatuses: Record<string, string> = {
  '200': 'The page: the form, or the page that says the details are complete.',
  '302': 'After a visit: on to the link’s `refresh_url` (a used or expired link) or `return_url`.',
  '303': 'After a form post: on to the link’s `return_url`.',
  '400': 'The form again, saying what was refused; or a page saying the account can no longer be changed.',
  '403': 'A page saying the account is not the platform’s to change.',
  '404': 'The link, or its account, does not exist.',
  '409': 'The form again: the account changed meanwhile.',
  '413': 'The form is too large.',
  '415': 'The form is not form-encoded.',
  '429': 'The form again: too many changes to the account at once.',
  '500': 'A page that quotes the request id.',
};

const securitySchemes = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A secret key (`sk_test_…`, `sk_live_…`) as a Bearer token; HTTP Basic auth with the key as user name works too.',
  },
  publishableKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A publishable key (`pk_test_…`, `pk_live_…`): token creation only.',
  },
  meterEventSession: {
    type: 'http',
    scheme: 'bearer',
    description: 'The `authentication_token` of a meter event session (`POST /v2/billing/meter_event_session`).',
  },
} as const;

const security: Record<Credential, Array<Record<string, string[]>>> = {
  secret_key: [{ secretKey: [] }],
  secret_or_publishable_key: [{ secretKey: [] }, { publishableKey: [] }],
  meter_event_session: [{ meterEventSession: [] }],
  none: [],
};

const requestHeaders = {
  ServiceVersion: {
    name: 'Service-Version',
    in: 'header',
    required: false,
    description: `The API version to render v1 objects and events at, one of the reference's dated versions (an unknown one is a 400); the SDK's \`Stripe-Version\` is read too. A request naming none is rendered at ${defaultServiceVersion}; schemas show the newest shape, ${latestServiceVersion}, with the fields older versions render marked as such.`,
    schema: { type: 'string' },
  },
  ServiceContext: {
    name: 'Service-Context',
    in: 'header',
    required: false,
    description: 'Act inside a connected account of the key’s platform (`Service-Account`, and the SDK’s `Stripe-Context` / `Stripe-Account`, are read too).',
    schema: { type: 'string', maxLength: 255 },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'Makes a POST or DELETE safe to retry: the same key with the same request answers the first response again, for 24 hours.',
    schema: { type: 'string', maxLength: 255 },
  },
} as const;

const responseHeaders = {
  RequestId: { description: 'This request’s id (`req_…`); errors quote it.', schema: { type: 'string' } },
  ServiceVersion: { description: 'The API version the response is rendered at.', schema: { type: 'string' } },
  IdempotentReplayed: {
    description: '`true` when the response is the replay of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string' },
  },
  RetryAfter: { description: 'Seconds to wait before retrying (429).', schema: { type: 'string' } },
} as const;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

function apiHeaders(method: Method) {
  return {
    'Request-Id': ref('headers', 'RequestId'),
    'Service-Version': ref('headers', 'ServiceVersion'),
    ...(method !== 'get' && { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') }),
  };
}

/** `/v1/customers/{id}/sources` → `v1/customers`: one tag per API area. */
const tagOf = (path: string) =>
  path
    .split('/')
    .filter((segment) => segment !== '' && !segment.startsWith('{'))
    .slice(0, 3)
    .join('/');

/** `/v1/customers/{id}/sources/{source_id}`, `source_id` → "The id of the source.": the path names what each id is of. */
function pathParameterDescription(path: string, name: string): string {
  const segments = path.split('/');
  const collection = segments[segments.indexOf(`{${name}}`) - 1] ?? '';
  const object = collection.replace(/s$/, '').replaceAll('_', ' ');
  return name === 'secret' ? `The secret in the ${object}’s \`url\`.` : `The id of the ${object}.`;
}

const pathParameters = (path: string) =>
  [...path.matchAll(/\{([a-z_]+)\}/g)].map(([, name]) => ({
    name: name!,
    in: 'path' as const,
    required: true,
    description: pathParameterDescription(path, name!),
    schema: { type: 'string' as const, maxLength: 255 },
  }));

/** `page` of a v2 list: the signed token in a `next_page_url`, standing for every other parameter. */
const pageParameter = {
  name: 'page',
  in: 'query' as const,
  required: false,
  description: 'The token of a `next_page_url`: it carries the first request’s parameters, so it is sent alone.',
  schema: { type: 'string' as const, maxLength: 4096 },
};

/** The summary and description the handler declares (`httpHandler`, `htmlHandler`, the document route). */
const operationText = ({ summary, description }: HandlerContract) => ({ summary, ...(description && { description }) });

function apiOperation(route: Route, contract: Extract<HandlerContract, { kind: 'api' }>, response: z.ZodType | undefined): ZodOpenApiOperationObject {
  if (!response) throw new Error(`${route.name} (${route.handler}) is an API route: the response table must declare its success body`);
  const method = route.method.toLowerCase() as Method;
  const v2 = route.path.startsWith('/v2/');
  const inBody = method === 'post';
  const errorBody = v2 ? 'V2Error' : 'V1Error';
  return {
    operationId: route.name,
    ...operationText(contract),
    tags: [tagOf(route.path)],
    security: security[contract.credential],
    parameters: [
      ...pathParameters(route.path),
      ...(contract.v2List ? [pageParameter] : []),
      ref('parameters', 'ServiceVersion'),
      ...(contract.credential === 'meter_event_session' ? [] : [ref('parameters', 'ServiceContext')]),
      ...(method === 'get' ? [] : [ref('parameters', 'IdempotencyKey')]),
    ],
    ...(inBody
      ? {
          requestBody: {
            required: false,
            content: v2 ? { 'application/json': { schema: contract.params } } : { 'application/x-www-form-urlencoded': { schema: contract.params } },
          },
        }
      : { requestParams: { query: contract.params as z.ZodType<unknown, Record<string, unknown>> } }),
    responses: {
      [String(contract.status)]: {
        description: contract.status === 202 ? 'Accepted.' : 'Success.',
        headers: apiHeaders(method),
        content: { 'application/json': { schema: response } },
      },
      ...Object.fromEntries(Object.keys(errorStatuses).map((status) => [status, ref('responses', `${errorBody}${status}`)])),
    },
  };
}

function htmlOperation(route: Route, contract: HandlerContract): ZodOpenApiOperationObject {
  const post = route.method === 'POST';
  return {
    operationId: route.name,
    ...operationText(contract),
    tags: [tagOf(route.path)],
    security: [],
    parameters: pathParameters(route.path),
    ...(post && {
      requestBody: {
        required: true,
        content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } } },
      },
    }),
    responses: Object.fromEntries(
      Object.entries(htmlStatuses).map(([status, description]): [string, ZodOpenApiResponseObject] => [
        status,
        status.startsWith('3')
          ? { description, headers: { Location: { schema: { type: 'string' as const } }, 'Request-Id': ref('headers', 'RequestId') } }
          : { description, headers: { 'Request-Id': ref('headers', 'RequestId') }, content: { 'text/html': { schema: { type: 'string' as const } } } },
      ]),
    ),
  };
}

function documentOperation(route: Route, contract: HandlerContract): ZodOpenApiOperationObject {
  return {
    operationId: route.name,
    ...operationText(contract),
    tags: ['openapi'],
    security: [],
    responses: { '200': { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } },
  };
}

function errorResponses() {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [generation, body] of [
    ['V1Error', v1ErrorBody],
    ['V2Error', v2ErrorBody],
  ] as const) {
    for (const [status, description] of Object.entries(errorStatuses)) {
      responses[`${generation}${status}`] = {
        description,
        headers: {
          'Request-Id': ref('headers', 'RequestId'),
          'Service-Version': ref('headers', 'ServiceVersion'),
          ...(status === '429' && { 'Retry-After': ref('headers', 'RetryAfter') }),
        },
        content: { 'application/json': { schema: body } },
      };
    }
  }
  return responses;
}

/**
 * v1 bodies and every query string are decoded with `qs` in bracket notation: `metadata[key]=v`,
 * `items[0][price]=p`, `expand[0]=x`. OpenAPI says so with `deepObject` for each parameter or form field
 * that is an object or an array of objects. An array of plain values is declared in the `form` style
 * (`types=a&types=b`, which `qs` reads as one array, and `types=a` alone, read as an array of one by
 * shared/http/single-values.ts): OpenAPI defines `deepObject` for objects only, so generic clients
 * disagree on how to send an array in it, while every one sends `form` alike. A body with required
 * fields is a required body.
 */
function describeEncodings(document: JsonObject): void {
  const schemas = ((document.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, JsonObject>;
  const resolve = (schema: JsonObject | undefined): JsonObject | undefined => {
    const target = schema?.$ref;
    return typeof target === 'string' ? resolve(schemas[target.split('/').at(-1)!]) : schema;
  };
  const members = (schema: JsonObject): JsonObject[] => [schema, ...((schema.anyOf as JsonObject[]) ?? []), ...((schema.oneOf as JsonObject[]) ?? [])];
  const isObject = (schema: JsonObject | undefined): boolean => {
    const resolved = resolve(schema);
    return resolved !== undefined && members(resolved).some((member) => resolve(member)?.type === 'object');
  };
  const styleOf = (schema: JsonObject | undefined): JsonObject | undefined => {
    const resolved = resolve(schema);
    if (!resolved) return undefined;
    const arrays = members(resolved)
      .map(resolve)
      .filter((member) => member?.type === 'array');
    if (isObject(resolved) || arrays.some((array) => isObject(array!.items as JsonObject))) return { style: 'deepObject', explode: true };
    return arrays.length > 0 ? { style: 'form', explode: true } : undefined;
  };
  const requiresFields = (schema: JsonObject | undefined): boolean => {
    const resolved = resolve(schema);
    if (!resolved) return false;
    const alternatives = [...((resolved.anyOf as JsonObject[]) ?? []), ...((resolved.oneOf as JsonObject[]) ?? [])];
    if (alternatives.length > 0) return alternatives.every(requiresFields);
    return ((resolved.required as unknown[] | undefined) ?? []).length > 0;
  };
  for (const item of Object.values(document.paths as Record<string, Record<string, JsonObject>>)) {
    for (const operation of Object.values(item)) {
      for (const parameter of (operation.parameters ?? []) as JsonObject[]) {
        const style = parameter.in === 'query' && styleOf(parameter.schema as JsonObject);
        if (style) Object.assign(parameter, style);
      }
      const body = operation.requestBody as JsonObject | undefined;
      const content = (body?.content ?? {}) as Record<string, JsonObject>;
      if (body && Object.values(content).some((media) => requiresFields(media.schema as JsonObject))) body.required = true;
      const form = content['application/x-www-form-urlencoded'];
      const properties = resolve(form?.schema as JsonObject | undefined)?.properties as Record<string, JsonObject> | undefined;
      if (form && properties) {
        const encoding = Object.entries(properties).flatMap(([name, schema]) => {
          const style = styleOf(schema);
          return style ? [[name, style] as const] : [];
        });
        if (encoding.length > 0) form.encoding = Object.fromEntries(encoding);
      }
    }
  }
}

const signatureHeader = {
  required: true,
  description:
    '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the signing secret>`; the SDK’s `constructEvent` and `parseEventNotification` verify it.',
  schema: { type: 'string' as const },
};

/**
 * What this service POSTs to the URLs it delivers events to (webhook endpoints and webhook event destinations).
 * A request body is rendered as input, where objects stay open; the payloads are the service's output, so strict.
 */
function deliveries(): ZodOpenApiPathsObject {
  const delivery = (operationId: string, summary: string, description: string, payload: z.ZodType) => ({
    post: {
      operationId,
      summary,
      description,
      security: [],
      parameters: [{ name: 'Service-Signature', in: 'header' as const, ...signatureHeader }],
      requestBody: { required: true, content: { 'application/json': { schema: payload } } },
      responses: { '200': { description: 'Any 2xx answer counts as delivered; anything else, or no answer within the timeout, is retried.' } },
    },
  });
  return {
    snapshotEvent: delivery(
      'deliverSnapshotEvent',
      'Receive an event (v1)',
      'A v1 event, to v1 webhook endpoints and snapshot event destinations, rendered at the endpoint’s pinned version.',
      snapshotEventObject.strict(),
    ),
    thinEvent: delivery(
      'deliverThinEvent',
      'Receive a thin event notification',
      'A thin event notification, to thin event destinations: fetch `GET /v2/core/events/{id}` for its data.',
      thinNotificationObject.strict(),
    ),
  };
}

/**
 * Builds the document from the route table, each API route's success body (`responses`, by route name:
 * functions/responses.ts) and its handler's contract. `load` imports a handler module (the local gateway's
 * loader, or a plain import).
 */
export async function buildOpenApiDocument(routes: readonly Route[], responses: Readonly<Record<string, z.ZodType>>, load: LoadHandler): Promise<JsonObject> {
  const unrouted = Object.keys(responses).filter((name) => !routes.some((route) => route.name === name));
  if (unrouted.length > 0) throw new Error(`The response table names routes the route table does not have: ${unrouted.join(', ')}`);
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const contract = contractOf(await load(route.handler));
    if (!contract) throw new Error(`${route.handler} does not export a handler made by httpHandler, htmlHandler or the document route`);
    const response = Object.hasOwn(responses, route.name) ? responses[route.name] : undefined;
    if (contract.kind !== 'api' && response) throw new Error(`${route.name} has a response schema, but its handler is no API handler`);
    const operation =
      contract.kind === 'api'
        ? apiOperation(route, contract, response)
        : contract.kind === 'html'
          ? htmlOperation(route, contract)
          : documentOperation(route, contract);
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation };
  }
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Billing, Accounts and Event Delivery API',
      version: latestServiceVersion,
      description:
        'v1 routes take form-encoded bodies in bracket notation (`metadata[key]=value`, `items[0][price]=price_…`) and answer v1 objects; ' +
        'v2 routes take JSON bodies. Query strings use bracket notation on both. Errors are `{"error": {type, code, message, param}}` on v1 ' +
        'and `{"error": {type, code, message}}` on v2.',
    },
    servers: [{ url: '/' }],
    security: security.secret_key,
    paths,
    webhooks: deliveries(),
    components: {
      securitySchemes,
      parameters: requestHeaders,
      headers: responseHeaders,
      responses: errorResponses(),
    },
  }) as unknown as JsonObject;
  describeEncodings(document);
  return document;
}

/** The document as `npm run openapi` writes it and `GET /openapi.json` serves it. */
export const renderOpenApiDocument = (document: JsonObject): string => `${JSON.stringify(document, null, 2)}\n`;

/** The placeholder environment handler modules need to be imported (they read configuration at cold start); nothing is called. */
export const offlineHandlerEnvironment: Record<string, string> = {
  TABLE_NAME: 'openapi',
  AWS_REGION: 'us-east-1',
  DELIVERIES_QUEUE_URL: 'http://localhost/queue/deliveries',
  METER_EVENTS_QUEUE_URL: 'http://localhost/queue/meter-events',
  BILLING_QUEUE_URL: 'http://localhost/queue/billing',
};
