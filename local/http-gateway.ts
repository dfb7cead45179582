import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createLambdaContext, localAccountId } from '#local/lambda-context.ts';
import { compileRoutes, decode } from '#shared/http/route-match.ts';
import type { Permission } from '#functions/permissions.ts';
import { callScope, callTotals, withCallScope } from '#shared/aws/aws-calls.ts';
import { functionCallScope } from './iam.ts';

/** What the gateway needs of a route table entry (`Route` from `functions/routes.ts` fits). */
export interface GatewayRoute {
  name: string;
  /** An HTTP method, or `ANY`. */
  method: string;
  /** API Gateway syntax: `/v1/webhook_endpoints/{id}`, `{proxy+}` as a greedy last segment. */
  path: string;
  /** Module exporting `handler`, relative to `rootDir`. */
  handler: string;
  /** What its function may call, enforced as IAM would (`local/iam.ts`); absent: calls are only recorded. */
  permissions?: readonly Permission[];
}

/** Serves every request no route matches, with route key `$default`. */
export interface GatewayFallbackRoute {
  name: string;
  handler: string;
  permissions?: readonly Permission[];
}

/**
 * Response header with what the request's function asked of AWS: `calls=3; read=1.5; write=4` (DynamoDB's
 * consumed read and write units). Local only: API Gateway never adds it.
 */
const awsCallsHeader = 'x-local-aws-calls';

/** An HTTP API Lambda handler as the gateway calls it. */
export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => unknown;

/** Turns a route's `handler` entry into its handler function. */
export type LoadHandler = (entry: string) => Promise<HttpHandler>;

/** Where handler failures, timeouts and unmappable results are reported. */
export interface HttpGatewayLogger {
  error(message: string, ...details: unknown[]): void;
}

/** A request the gateway answered (routed or not; `/_local` and the dashboard's own pages are not). */
export interface AnsweredRequest {
  method: string;
  /** The path, without the query. */
  path: string;
  headers: IncomingMessage['headers'];
  status: number;
  /** The answer's `Request-Id`, when the handler gave one. */
  requestId: string | undefined;
  /** `Date.now()` when it arrived. */
  startedAt: number;
  durationMs: number;
}

export interface HttpGatewayOptions {
  /** 0 picks a free port. */
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
  routes: readonly GatewayRoute[];
  fallbackRoute: GatewayFallbackRoute;
  /** @default createModuleLoader(rootDir) */
  loadHandler?: LoadHandler;
  /** What handler entries are relative to. @default the repository root */
  rootDir?: string;
  /** Larger request bodies get 413 without reaching a handler. @default 10 MiB (API Gateway's limit) */
  maxBodyBytes?: number;
  /** After this long a request gets 503, as at API Gateway's integration timeout. @default 30_000 */
  timeoutMs?: number;
  /** Region in the Lambda context. @default 'us-east-1' */
  region?: string;
  /**
   * Runs before routing; returns true when it has taken care of the request (e.g. `/_local/*` diagnostics).
   */
  extraRoutes?: (request: IncomingMessage, response: ServerResponse) => boolean;
  /** @default console */
  logger?: HttpGatewayLogger;
  /**
   * Sees each routed request's handler result (and the request) before it is sent: tests check answers against
   * the OpenAPI document, the local dashboard measures meter event streams.
   */
  inspectResponse?: (route: GatewayRoute, result: unknown, event: APIGatewayProxyEventV2) => void;
  /** Told of each request once its answer is sent (the local request log). */
  onAnswered?: (request: AnsweredRequest) => void;
}

export interface HttpGateway {
  /** `http://<host>:<port>`, no trailing slash. */
  url: string;
  /** Stops accepting connections, lets requests in flight finish (up to 5 s) and closes idle keep-alive sockets. */
  stop(): Promise<void>;
}

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Imports handler modules the way Lambda does: once per entry, on first use (a cold start), then reused
 * (warm) so module-scope state such as SDK clients lives across invocations. A failed import is retried
 * on the next request.
 */
export function createModuleLoader(rootDir: string = repositoryRoot): LoadHandler {
  return async (entry) => {
    const module = (await import(pathToFileURL(resolve(rootDir, entry)).href)) as { handler?: unknown };
    if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a function named handler`);
    return module.handler as HttpHandler;
  };
}

/**
 * Serves the route table over node:http the way API Gateway HTTP APIs do with Lambda proxy integrations
 * (payload format 2.0): each request becomes an `APIGatewayProxyEventV2` for the matching route's handler,
 * and the handler's result becomes the response.
 */
export async function startHttpGateway(options: HttpGatewayOptions): Promise<HttpGateway> {
  const { host = '127.0.0.1', fallbackRoute, maxBodyBytes = 10 * 1024 * 1024, timeoutMs = 30_000, region = 'us-east-1', extraRoutes } = options;
  const logger = options.logger ?? console;
  const load = options.loadHandler ?? createModuleLoader(options.rootDir);
  const matchRoute = compileRoutes(options.routes);

  const handlers = new Map<string, Promise<HttpHandler>>();
  const handlerFor = (entry: string): Promise<HttpHandler> => {
    let loading = handlers.get(entry);
    if (!loading) {
      loading = load(entry);
      handlers.set(entry, loading);
      loading.catch(() => handlers.delete(entry));
    }
    return loading;
  };

  const server = createServer({ keepAlive: true }, (request, response) => {
    if (extraRoutes?.(request, response)) return;
    serve(request, response).catch((error: unknown) => {
      // A client that hangs up mid-upload is not a gateway failure.
      if (request.destroyed && !request.complete) return;
      logger.error('Local gateway failed to answer a request', error);
      if (!response.headersSent) sendMessage(response, 500, 'Internal Server Error');
      else response.destroy();
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (options.onAnswered) {
      const startedAt = Date.now();
      const started = performance.now();
      response.once('finish', () => {
        const header = response.getHeader('request-id');
        options.onAnswered!({
          method: request.method ?? 'GET',
          path: (request.url ?? '/').split('?')[0]!,
          headers: request.headers,
          status: response.statusCode,
          requestId: typeof header === 'string' ? header : undefined,
          startedAt,
          durationMs: performance.now() - started,
        });
      });
    }
    const requestId = randomUUID();
    response.setHeader('apigw-requestid', requestId);

    const declaredLength = Number(request.headers['content-length']);
    const body = declaredLength > maxBodyBytes ? undefined : await readBody(request, maxBodyBytes);
    if (body === undefined) return refuseOversizedBody(request, response);

    const target = request.url ?? '/';
    const queryStart = target.indexOf('?');
    const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
    const rawQueryString = queryStart === -1 ? '' : target.slice(queryStart + 1);
    const method = request.method ?? 'GET';
    const match = matchRoute(method, rawPath);
    const route = match?.route ?? fallbackRoute;
    const routeKey = match ? `${match.route.method} ${match.route.path}` : '$default';

    const event = buildEvent({ request, requestId, routeKey, rawPath, rawQueryString, body, pathParameters: match?.pathParameters });
    const context = createLambdaContext({ functionName: route.name, region, timeoutMs });

    let result: unknown;
    try {
      const handler = await handlerFor(route.handler);
      // `LOCAL_AWS_CALLS=true`, or a request asking with `x-local-aws-calls: measure`: the response tells what
      // it cost (asking DynamoDB for it slows DynamoDB Local, so it is off otherwise).
      const measure = process.env.LOCAL_AWS_CALLS === 'true' || request.headers[awsCallsHeader] === 'measure';
      const scope = route.permissions ? functionCallScope(route.name, route.permissions, measure) : callScope({ measure });
      result = await withTimeout(Promise.resolve(withCallScope(scope, () => handler(event, context))), timeoutMs);
      const { calls, readUnits, writeUnits } = callTotals(scope);
      if (measure && result && typeof result === 'object' && 'statusCode' in result) {
        const structured = result as { headers?: Record<string, unknown> };
        const operations = scope.calls.map((call) => `${call.operation}(${call.millis.toFixed(1)} ms)`).join(',');
        structured.headers = { ...structured.headers, [awsCallsHeader]: `calls=${calls}; read=${readUnits}; write=${writeUnits}; ops=${operations}` };
      }
    } catch (error) {
      if (error === timedOut) {
        logger.error(`${route.name} did not answer within ${timeoutMs} ms (request ${requestId})`);
        return sendMessage(response, 503, 'Service Unavailable');
      }
      logger.error(`${route.name} failed (request ${requestId})`, error);
      return sendMessage(response, 500, 'Internal Server Error');
    }
    if (match && options.inspectResponse) {
      try {
        options.inspectResponse(match.route, result, event);
      } catch (error) {
        logger.error(`Inspecting the answer of ${route.name} failed (request ${requestId})`, error);
      }
    }
    if (!writeResult(response, result)) {
      logger.error(`${route.name} returned a response API Gateway cannot map (request ${requestId})`, result);
      sendMessage(response, 500, 'Internal Server Error');
    }
  }

  // A request head over Node's limit (16 KiB) never reaches a handler; answer it in the API's error shape, as
  // the API answers everything else, instead of Node's bare 431 (the client may send anything after that).
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    if (error.code !== 'HPE_HEADER_OVERFLOW' || !socket.writable) return void socket.destroy();
    const v2 = /^[A-Z]+ \/v2[/?\s]/.test(error.rawPacket?.subarray(0, 16).toString('latin1') ?? '');
    const message = 'The request line and headers are larger than the 16 KiB this service accepts.';
    const body = JSON.stringify({ error: { type: 'invalid_request_error', code: 'request_header_too_large', message, ...(v2 ? {} : { param: null }) } });
    socket.write(
      `HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    // As for an oversized body: what the client still sends (a body behind the head) is read and dropped,
    // so it sees the answer instead of a reset, and a client that keeps sending is cut off after a second.
    socket.on('data', () => {});
    drainThenClose(socket, socket, () => socket.end());
  });

  // Node closes idle keep-alive connections after 5 s, so a client reusing one just then gets ECONNRESET;
  // hold them open about as long as cloud load balancers do.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.removeListener('error', reject);
      resolveListen();
    });
  });
  const { port } = server.address() as AddressInfo;

  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    stop() {
      stopping ??= new Promise<void>((resolveClose) => {
        // close() stops accepting and ends sockets that are idle now; sockets that finish a request later
        // become idle afterwards, so keep sweeping until the server reports closed.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const deadline = setTimeout(() => server.closeAllConnections(), 5_000);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(deadline);
          resolveClose();
        });
        server.closeIdleConnections();
      });
      return stopping;
    },
  };
}

interface EventParts {
  request: IncomingMessage;
  requestId: string;
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  body: Buffer;
  pathParameters: Record<string, string> | undefined;
}

function buildEvent(parts: EventParts): APIGatewayProxyEventV2 {
  const { request, requestId, routeKey, rawPath, rawQueryString, body, pathParameters } = parts;
  const joined = new Map<string, string>();
  const cookies: string[] = [];
  const raw = request.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index].toLowerCase();
    const value = raw[index + 1];
    if (name === 'cookie') {
      for (const cookie of value.split(';')) if (cookie.trim()) cookies.push(cookie.trim());
    } else {
      // API Gateway joins repeated headers with a bare comma.
      const previous = joined.get(name);
      joined.set(name, previous === undefined ? value : `${previous},${value}`);
    }
  }
  const headers: Record<string, string> = Object.fromEntries(joined);
  const sourceIp = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${sourceIp}` : sourceIp;
  headers['x-forwarded-port'] ??= String(request.socket.localPort ?? '');
  headers['x-forwarded-proto'] ??= 'http';
  const domainName = headers.host ?? `${request.socket.localAddress}:${request.socket.localPort}`;
  const hostname = domainName.replace(/:\d+$/, '');
  const now = new Date();

  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 && { cookies }),
    headers,
    ...(rawQueryString !== '' && { queryStringParameters: parseQueryString(rawQueryString) }),
    requestContext: {
      accountId: localAccountId,
      apiId: 'local',
      domainName,
      domainPrefix: /^[\d.]+$|^\[/.test(hostname) ? hostname : hostname.split('.')[0],
      http: {
        method: request.method ?? 'GET',
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: formatRequestTime(now),
      timeEpoch: now.getTime(),
    },
    ...(pathParameters && { pathParameters }),
    isBase64Encoded: false,
  };
  if (body.length > 0) {
    if (isTextual(headers['content-type'])) {
      event.body = body.toString('utf8');
    } else {
      event.body = body.toString('base64');
      event.isBase64Encoded = true;
    }
  }
  return event;
}

/** Repeated keys are joined with commas, as API Gateway does; `rawQueryString` keeps the original. */
function parseQueryString(rawQueryString: string): Record<string, string> {
  const parameters = new Map<string, string>();
  for (const pair of rawQueryString.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decode((equals === -1 ? pair : pair.slice(0, equals)).replaceAll('+', ' '));
    const value = equals === -1 ? '' : decode(pair.slice(equals + 1).replaceAll('+', ' '));
    const previous = parameters.get(name);
    parameters.set(name, previous === undefined ? value : `${previous},${value}`);
  }
  return Object.fromEntries(parameters);
}

/** Bodies of these media types reach the handler as text; everything else (or no type) as base64. */
function isTextual(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  return (
    mediaType.startsWith('text/') ||
    mediaType === 'application/json' ||
    mediaType === 'application/x-www-form-urlencoded' ||
    mediaType === 'application/xml' ||
    mediaType === 'application/javascript' ||
    mediaType.endsWith('+json') ||
    mediaType.endsWith('+xml')
  );
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `requestContext.time`: `12/Mar/2020:19:03:58 +0000`. */
function formatRequestTime(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/**
 * The handler's result as API Gateway maps it for payload 2.0: an object with `statusCode` is a structured
 * response; anything else is a 200 `application/json` whose body is the string itself or the JSON of the value.
 * Returns false when a structured response is unusable (API Gateway answers 500 then).
 */
function writeResult(response: ServerResponse, result: unknown): boolean {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    const body = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
    return true;
  }
  const structured = result as APIGatewayProxyStructuredResultV2;
  const { statusCode } = structured;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) return false;
  if (structured.body !== undefined && structured.body !== null && typeof structured.body !== 'string') return false;

  const body = structured.body ? Buffer.from(structured.body, structured.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(structured.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection') continue;
    headers[lower] = String(value);
  }
  if (structured.cookies?.length) {
    headers['set-cookie'] = [...(headers['set-cookie'] ? [headers['set-cookie'] as string] : []), ...structured.cookies];
  }
  headers['content-length'] = String(body.length);
  response.writeHead(statusCode, headers);
  response.end(body);
  return true;
}

function sendMessage(response: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ message });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** The whole body, or undefined as soon as it passes `limit` bytes. Never buffers more than `limit`. */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeListener('data', onData);
        request.removeListener('end', onEnd);
        chunks.length = 0;
        resolveBody(undefined);
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => resolveBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', reject);
  });
}

/**
 * Answers 413 like API Gateway and closes the connection. The rest of the upload is read and dropped so the
 * client sees the answer instead of a reset, but a client that keeps sending is cut off after a second.
 */
function refuseOversizedBody(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('connection', 'close');
  sendMessage(response, 413, 'Request Entity Too Large');
  if (!request.complete) drainThenClose(request, request.socket);
}

/** Reads and drops the rest of an upload; a client still sending a second later is cut off. */
function drainThenClose(upload: Readable, socket: Duplex, ended: () => void = () => {}): void {
  upload.resume();
  const cutOff = setTimeout(() => socket.destroy(), 1_000);
  cutOff.unref();
  upload.once('end', () => {
    clearTimeout(cutOff);
    ended();
  });
}

const timedOut = Symbol('timed out');

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
