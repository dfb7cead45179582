import { systemClock } from '#shared/core/clock.ts';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type * as z from 'zod';
import { config } from '#shared/core/config.ts';
import { AuthenticationError, ConflictError } from '#shared/core/errors.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoAccountSecretStore } from '#shared/data/account-secret-store.ts';
import { dynamoIdempotencyStore } from '#shared/data/idempotency-store.ts';
import { dynamoRateCounter } from '#shared/data/rate-counter.ts';
import type { EventOrigin, ReceiptRequest } from '#shared/events/event.ts';
import { snapshotDataAt } from '#shared/events/versions.ts';
import type { ExpansionPlan } from '#shared/expansion/plan.ts';
import type { Expander } from '#shared/expansion/resolver.ts';
import { randomBase62 } from '#shared/core/ids.ts';
import { logger } from '#shared/core/logger.ts';
import { derivedKey, type AccountSecretStore } from '#shared/platform/account-secrets.ts';
import type { PlatformStore, Caller } from '#shared/platform/types.ts';
import { cachedAccountSecrets, wireApiKeys } from '#shared/platform/wiring.ts';
import { requestedServiceVersion, defaultServiceVersion } from '#shared/wire/api-version.ts';
import { renderAtVersion } from '#shared/versions/render.ts';
import { authenticate } from './authenticate.ts';
import { publicBaseUrl } from './base-url.ts';
import { decodeParams } from './encoding.ts';
import { errorResponse, type ApiGeneration } from './error-mapping.ts';
import { checkIdempotencyKey, idempotencyKeyTtlMillis, requestFingerprint, runIdempotently, runWithReceipt } from './idempotency.ts';
import { countMetric, flushMetrics } from '#shared/core/observability.ts';
import { rateLimitedMetricName } from './rate-limit.ts';
import type { IdempotencyStore, StoredResponse } from '#shared/platform/ports.ts';
import { checkPathIds } from './bounds.ts';
import { withContract, type OperationText } from './contract.ts';
import { fitV1Page, fitV1SearchResult, resumeV2List, v1SearchPages, type SearchPages, type V2Paging } from '#shared/wire/pagination.ts';
import { authFailureGuard } from './auth-failures.ts';
import { clientAddress } from './client-address.ts';
import { rateLimiter, type CounterFailure, type RateLimitClass, type RateLimiter, type RateLimits } from './rate-limit.ts';
import { singleValuesAsArrays } from './single-values.ts';
import { validateParams } from './validation.ts';

/** What an operation sees: the validated parameters and who asked. */
export interface ApiRequest<P> {
  id: string;
  api: ApiGeneration;
  method: string;
  /** The request path, e.g. `/v1/webhook_endpoints/we_123`. */
  path: string;
  pathParameters: Record<string, string>;
  params: P;
  caller: Caller;
  /** Where the events this request causes happen, and the request that caused them. */
  origin: EventOrigin;
  /** The version the response is rendered at: the one the request named, else the default version. */
  serviceVersion: string;
  /** The version the request named (`Service-Version`, else the SDK's `Stripe-Version`), validated; null when it named none. */
  explicitServiceVersion: string | null;
  idempotencyKey: string | undefined;
  /** Routes declared `idempotency: 'operation'`, on a POST with an `Idempotency-Key`. */
  idempotency?: OperationIdempotency;
  /** The client's address (shared/http/client-address.ts), if known. */
  sourceIp: string | null;
  /** The client's `User-Agent`, if it sent one (v2 tokens record it for the attestations they carry). */
  userAgent: string | null;
  /** The service's public base URL (no trailing slash), for links to pages it serves. */
  baseUrl: string;
  /** Where a v2 list resumes and how it links its next page (lists declared `v2List` only). */
  paging?: V2Paging;
  /** The page tokens of a v1 search (operations declared `v1Search` only). */
  searchPages?: SearchPages;
}

/** The success body of an operation; its status is the route's (`HttpHandlerOptions.status`). */
export interface ApiResult<B = unknown> {
  body: B;
  /** An operation that keeps its own idempotency (`idempotency: 'operation'`): the request this one replays. */
  replayedFrom?: string;
}

/** An idempotent request as an operation that keeps its own idempotency sees it (`idempotency: 'operation'`). */
export interface OperationIdempotency {
  key: string;
  /** The request's method, path and parameters, keyed under the account's secret (`requestFingerprint`). */
  fingerprint: string;
  requestId: string;
}

declare const bodySchema: unique symbol;

/**
 * A success body's schema by its type alone. The response table (functions/responses.ts) declares the
 * schema itself, for the OpenAPI document and the tests' response checker; a handler names it with
 * `responds<typeof customerObject>()` from a type-only import, so tsc still checks the body against it while
 * no function bundles the schema or builds it at cold start (nothing at runtime validates a response).
 */
export interface Responds<R extends z.ZodType> {
  readonly [bodySchema]?: R;
}

/** `response: responds<typeof customerObject>()`: see {@link Responds}. */
export const responds = <R extends z.ZodType>(): Responds<R> => ({});

export interface HttpHandlerOptions<S extends z.ZodType, R extends z.ZodType> extends OperationText {
  /** Strict schema of the query-string and body parameters together. */
  params: S;
  /** The success body's schema, by type (functions/responses.ts holds the schema): the operation must return its input type. */
  response: Responds<R>;
  /** Status of a success. @default 200 */
  status?: number;
  /** Only token creation accepts publishable keys. @default false */
  allowPublishableKey?: boolean;
  /** Another credential than an API key (the meter event stream takes a session token). */
  authenticate?: (headers: Record<string, string | undefined>) => Promise<Caller>;
  /**
   * A v2 list: `page` (the signed token in a `next_page_url`) stands for the first request's parameters,
   * which are validated again by `params` as if sent anew. @default false
   */
  v2List?: boolean;
  /** A v1 search: `page` is a signed token of the account, mode, path and query (see `SearchPages`). @default false */
  v1Search?: boolean;
  /** What the route's requests count against (see RateLimits). @default 'requests': per API key */
  rateLimit?: RateLimitClass;
  /**
   * Who keeps a POST's `Idempotency-Key`: the pipeline (a record of its own, claimed then completed: 2
   * write units), or the operation, in the one record it writes anyway (`request.idempotency`; it answers
   * `replayedFrom` for a replay and refuses another fingerprint with `IdempotencyKeyReusedError`).
   * Or, for a v1 create whose success body is the object of an event it writes in one transaction, that
   * event's type (`{ answeredBy: 'customer.created' }`): the key's receipt goes into the create's
   * transaction and points at the event, which answers replays (no call of its own, no second copy of the
   * response). Requests with `expand` fall back to the pipeline's record.
   * @default 'pipeline'
   */
  idempotency?: 'pipeline' | 'operation' | { answeredBy: string };
  /**
   * Expands the success body as `params.expand` (an `expandParam(root)`, a checked plan) asks, in the
   * caller's scope, before it is sent or kept for idempotent replays.
   */
  expand?: Expander;
}

export interface PipelinePorts {
  platformStore: PlatformStore;
  idempotencyStore: IdempotencyStore;
  /** Keys the idempotency fingerprints and page tokens of each account. */
  secrets: AccountSecretStore;
  maxBodyBytes: number;
  /** Counts requests against their limits, in a counter every process shares. */
  rateLimiter: RateLimiter;
  rateLimits: RateLimits;
}

let defaultPorts: PipelinePorts | undefined;

/** The real adapters, created on first use and kept for the life of the process (a warm Lambda). */
function pipelinePorts(): PipelinePorts {
  if (!defaultPorts) {
    const table = serviceTable();
    defaultPorts = {
      platformStore: wireApiKeys(),
      idempotencyStore: dynamoIdempotencyStore(table),
      secrets: cachedAccountSecrets(dynamoAccountSecretStore(table)),
      maxBodyBytes: config().MAX_BODY_BYTES,
      rateLimiter: rateLimiter(dynamoRateCounter(table)),
      rateLimits: {
        perKey: { live: config().RATE_LIMIT_PER_KEY_LIVE, test: config().RATE_LIMIT_PER_KEY_TEST },
        meterEvents: { live: config().RATE_LIMIT_METER_EVENTS_LIVE, test: config().RATE_LIMIT_METER_EVENTS_TEST },
        meterEventStream: config().RATE_LIMIT_METER_EVENT_STREAM,
        search: { live: config().RATE_LIMIT_SEARCH_LIVE, test: config().RATE_LIMIT_SEARCH_TEST },
        authFailures: config().RATE_LIMIT_AUTH_FAILURES,
      },
    };
  }
  return defaultPorts;
}

export const newRequestId = (): string => `req_${randomBase62(14)}`;

export const apiGenerationOf = (path: string): ApiGeneration => (path === '/v2' || path.startsWith('/v2/') ? 'v2' : 'v1');

const render = (statusCode: number, body: unknown, requestId: string): StoredResponse => ({ statusCode, body: JSON.stringify(body), requestId });

function renderError(error: unknown, api: ApiGeneration, requestId: string): StoredResponse & { headers: Record<string, string> } {
  const response = errorResponse(error, api, requestId);
  if (response.status >= 500) logger.error('Request failed', { requestId, error: error as Error });
  return { ...render(response.status, response.body, requestId), headers: response.headers };
}

function toResult(response: StoredResponse, requestId: string, extraHeaders: Record<string, string | undefined>): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, no-store',
    'Request-Id': requestId,
  };
  for (const [name, value] of Object.entries(extraHeaders)) if (value !== undefined) headers[name] = value;
  return { statusCode: response.statusCode, headers, body: response.body };
}

/**
 * The counter a request takes from, its limit per second, and what happens when the counter cannot be
 * reached: a search (up to 1,000 items read) is refused, everything else let through (CounterFailure).
 */
function rateBucket(kind: RateLimitClass, caller: Caller, limits: RateLimits): [string, number, CounterFailure] {
  const mode = caller.livemode ? 'live' : 'test';
  if (kind === 'meter_events')
    return [`METER_EVENTS#${caller.platformId}#${mode}`, caller.livemode ? limits.meterEvents.live : limits.meterEvents.test, 'open'];
  if (kind === 'meter_event_stream') return [`METER_EVENT_STREAM#${caller.platformId}#${mode}`, limits.meterEventStream, 'open'];
  if (kind === 'search') return [`SEARCH#${caller.scope.accountId}#${mode}`, caller.livemode ? limits.search.live : limits.search.test, 'closed'];
  return [`KEY#${caller.credentialId}`, caller.livemode ? limits.perKey.live : limits.perKey.test, 'open'];
}

const lowerCaseHeaders = (headers: APIGatewayProxyEventV2['headers']): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));

/**
 * The secret of an account, for a read-only request: every account gets one when it is created, and an older
 * account gets one with its first write request (or from `npm run admin -- ensure-account-secrets`); one
 * without any yet cannot have been handed a page token, so the request is refused until then, with a 409.
 */
async function existingAccountSecret(secrets: AccountSecretStore, accountId: string): Promise<Buffer> {
  const key = await secrets.existingKeyFor(accountId);
  if (!key) {
    throw new ConflictError(
      'This account has no secret to sign page tokens with yet: it gets one with its first POST request (or when the operator runs `npm run admin -- ensure-account-secrets`). Retry after that.',
      'account_secret_missing',
    );
  }
  return key;
}

/**
 * Serves one API Gateway (payload 2.0) request: authentication, `Service-Version`, decoding, validation,
 * idempotency, the operation, and the documented error bodies. Exported for tests that pass fake ports.
 */
export async function serveRequest<S extends z.ZodType, R extends z.ZodType>(
  event: APIGatewayProxyEventV2,
  options: HttpHandlerOptions<S, R>,
  operation: (request: ApiRequest<z.output<S>>) => Promise<ApiResult<z.input<R>>>,
  ports: PipelinePorts,
): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = newRequestId();
  const path = event.rawPath;
  const method = event.requestContext.http.method.toUpperCase();
  const api = apiGenerationOf(path);
  const headers = lowerCaseHeaders(event.headers);
  const idempotencyKey = headers['idempotency-key'] || undefined;
  // The official SDK names the version header after the reference API; ours wins when both are sent.
  const versionHeader = headers['service-version'] || headers['stripe-version'] || undefined;
  let serviceVersion: string = defaultServiceVersion;
  let replay: { original: string } | undefined;
  let response: StoredResponse & { headers?: Record<string, string> };
  const sourceIp = clientAddress(headers, event.requestContext?.http?.sourceIp);
  try {
    const failures = authFailureGuard(ports.rateLimiter, ports.rateLimits.authFailures);
    failures.admit(sourceIp ?? '', systemClock());
    const caller = await (options.authenticate
      ? options.authenticate(headers)
      : authenticate(headers, ports.platformStore, { allowPublishableKey: options.allowPublishableKey ?? false })
    ).catch(async (error: unknown) => {
      if (error instanceof AuthenticationError) await failures.failed(sourceIp ?? '', systemClock());
      throw error;
    });
    const [bucket, limit, onCounterFailure] = rateBucket(options.rateLimit ?? 'requests', caller, ports.rateLimits);
    await ports.rateLimiter.enforce(bucket, limit, systemClock(), onCounterFailure);
    const pathParameters = (event.pathParameters ?? {}) as Record<string, string>;
    checkPathIds(pathParameters);
    serviceVersion = requestedServiceVersion(versionHeader);
    const decoded = decodeParams({
      api,
      method,
      contentType: headers['content-type'],
      query: event.rawQueryString ?? '',
      body: event.body,
      isBase64Encoded: event.isBase64Encoded,
      maxBodyBytes: ports.maxBodyBytes,
    });
    // A GET is served by a read-only function, which may read the account's secret but never create it.
    const accountSecret = () =>
      method === 'GET' ? existingAccountSecret(ports.secrets, caller.scope.accountId) : ports.secrets.keyFor(caller.scope.accountId);
    const secret = (purpose: Parameters<typeof derivedKey>[1]) => accountSecret().then((key) => derivedKey(key, purpose));
    const resumed = options.v2List
      ? resumeV2List(decoded, await secret('page-token'), `${caller.scope.accountId}:${caller.scope.livemode}:${path}`, path)
      : { params: decoded, paging: undefined };
    const searchPages = options.v1Search ? v1SearchPages(await secret('page-token'), `${caller.scope.accountId}:${caller.scope.livemode}:${path}`) : undefined;
    const raw = resumed.params;
    // A v2 POST's parameters are its JSON body, typed by the client; everything else came through `qs`.
    const params = validateParams(options.params, api === 'v2' && method === 'POST' ? raw : singleValuesAsArrays(options.params, raw), api);
    const request: ApiRequest<z.output<S>> = {
      id: requestId,
      api,
      method,
      path,
      pathParameters,
      params,
      caller,
      origin: {
        scope: caller.scope,
        platformId: caller.platformId,
        request: { id: requestId, idempotencyKey: idempotencyKey ?? null },
        apiVersion: serviceVersion,
      },
      serviceVersion,
      explicitServiceVersion: versionHeader ? serviceVersion : null,
      idempotencyKey,
      sourceIp,
      userAgent: event.requestContext?.http?.userAgent || headers['user-agent'] || null,
      baseUrl: publicBaseUrl(headers, event.requestContext.domainName),
      paging: resumed.paging,
      searchPages,
    };
    let replayedFrom: string | undefined;
    const run = async (): Promise<StoredResponse> => {
      try {
        const result = await operation(request);
        replayedFrom = result.replayedFrom;
        const expanded = await expandBody(options.expand, request, result.body);
        // v1 objects (expanded ones too) are rendered at the request's version; v2 objects are unversioned.
        const body = api === 'v1' ? renderAtVersion(expanded, request.serviceVersion) : expanded;
        return { ...render(options.status ?? 200, body, requestId), serviceVersion: request.serviceVersion };
      } catch (error) {
        return renderError(error, api, requestId);
      }
    };
    if (idempotencyKey !== undefined && (method === 'POST' || method === 'DELETE')) {
      checkIdempotencyKey(idempotencyKey);
      const fingerprint = requestFingerprint(await secret('idempotency-fingerprint'), method, path, raw);
      const scope = caller.keyKind === 'publishable' ? { ...caller.scope, publishable: true } : caller.scope;
      const keyed = { scope, key: idempotencyKey, fingerprint, requestId };
      const answeredBy = typeof options.idempotency === 'object' && api === 'v1' && !expands(params) ? options.idempotency.answeredBy : undefined;
      if (options.idempotency === 'operation') {
        request.idempotency = { key: idempotencyKey, fingerprint, requestId };
        response = await run();
        if (replayedFrom !== undefined) replay = { original: replayedFrom };
      } else if (answeredBy !== undefined) {
        const statusCode = options.status ?? 200;
        const now = systemClock();
        const receipt: ReceiptRequest = { answeredBy, draft: { ...keyed, statusCode, serviceVersion, now, expiresAt: now + idempotencyKeyTtlMillis } };
        request.origin.receipt = receipt;
        const answers = (candidate: StoredResponse, object: Record<string, unknown>) =>
          candidate.statusCode === statusCode && candidate.body === JSON.stringify(snapshotDataAt(object, null, serviceVersion).object);
        const outcome = await runWithReceipt(ports.idempotencyStore, keyed, receipt, run, answers);
        response = outcome.response;
        if (outcome.replayed) replay = { original: outcome.response.requestId };
      } else {
        const outcome = await runIdempotently(ports.idempotencyStore, keyed, run);
        response = outcome.response;
        if (outcome.replayed) replay = { original: outcome.response.requestId };
      }
    } else {
      response = await run();
    }
  } catch (error) {
    response = renderError(error, api, requestId);
  }
  // The functions' own 429s (rate limits, failed authentications), which the 429-rate alarm watches.
  if (response.statusCode === 429) {
    countMetric(rateLimitedMetricName);
    flushMetrics();
  }
  return toResult(response, requestId, {
    ...response.headers,
    // A replay says the version its body was rendered at, which may not be the one the retry names.
    'Service-Version': response.serviceVersion ?? serviceVersion,
    'Idempotency-Key': idempotencyKey,
    'Idempotent-Replayed': replay ? 'true' : undefined,
    'Original-Request': replay?.original,
  });
}

/** Whether the request asks for expansions (then its body is not its event's object). */
const expands = (params: unknown): boolean => {
  const plan = (params as { expand?: ExpansionPlan | string[] }).expand;
  return plan !== undefined && ('root' in plan ? plan.paths.length > 0 : plan.length > 0);
};

/**
 * The success body expanded as `params.expand` (an `expandParam(root)`, a checked plan) asks, in the
 * caller's scope, at the newest shape (the version chain renders it after). A list page or search result
 * the expansions made too large is cut again, as its paging cuts it.
 */
async function expandBody(expand: Expander | undefined, request: ApiRequest<unknown>, body: unknown): Promise<unknown> {
  const params = request.params as { expand?: ExpansionPlan | string[]; ending_before?: string; query?: string };
  const plan = params.expand;
  if (!expand || !plan || !('root' in plan) || plan.paths.length === 0) return body;
  const expanded = (await expand(request.caller.scope, body, plan)) as { object?: unknown; data: unknown[]; has_more: boolean };
  if (expanded?.object === 'list') return fitV1Page(expanded, params);
  const { searchPages } = request;
  if (expanded?.object === 'search_result' && searchPages && params.query !== undefined) {
    const query = params.query;
    return fitV1SearchResult(expanded as Parameters<typeof fitV1SearchResult>[0], (after) => searchPages.seal(after, query));
  }
  return expanded;
}

/**
 * The one way to write an HTTP handler: a parameter schema, the response schema's type and an operation.
 * All middy composition lives here, so a handler file is its schemas, one service call and this wrapper.
 * The parameter schema rides on the handler as its contract, which the OpenAPI document is built from with
 * the response table's schema (functions/responses.ts).
 */
export function httpHandler<S extends z.ZodType, R extends z.ZodType>(
  options: HttpHandlerOptions<S, R>,
  operation: (request: ApiRequest<z.output<S>>) => Promise<ApiResult<z.input<R>>>,
) {
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    // Never log the event, whatever POWERTOOLS_LOGGER_LOG_EVENT says: bodies carry card numbers and secrets.
    .use(injectLambdaContext(logger, { logEvent: false }))
    .handler((event) => serveRequest(event, options, operation, pipelinePorts()));
  return withContract(handler, {
    kind: 'api',
    summary: options.summary,
    description: options.description,
    params: options.params,
    status: options.status ?? 200,
    credential: options.authenticate ? 'meter_event_session' : options.allowPublishableKey ? 'secret_or_publishable_key' : 'secret_key',
    v2List: options.v2List ?? false,
    pagesWithAccountSecret: (options.v2List ?? false) || (options.v1Search ?? false),
  });
}

export { renderError as renderErrorResponse, toResult as toApiGatewayResult };
