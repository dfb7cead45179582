import { request as httpRequest, Agent, type OutgoingHttpHeaders } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModuleLoader, startHttpGateway, type GatewayRoute, type HttpGateway, type LoadHandler } from '#local/http-gateway.ts';
import { fileBytes } from './fixtures/binary-handler.ts';

const echo = 'test/local/fixtures/echo-handler.ts';

const fixtureRoutes: GatewayRoute[] = [
  { name: 'listThings', method: 'GET', path: '/v1/things', handler: echo },
  { name: 'retrieveThing', method: 'GET', path: '/v1/things/{id}', handler: echo },
  { name: 'searchThings', method: 'GET', path: '/v1/things/search', handler: echo },
  { name: 'updateThing', method: 'POST', path: '/v1/things/{id}', handler: echo },
  { name: 'failThing', method: 'POST', path: '/v1/failures', handler: 'test/local/fixtures/throwing-handler.ts' },
  { name: 'plainValue', method: 'GET', path: '/v1/plain', handler: 'test/local/fixtures/plain-value-handler.ts' },
  { name: 'downloadFile', method: 'GET', path: '/v1/files/{name}', handler: 'test/local/fixtures/binary-handler.ts' },
];
const fallbackRoute = { name: 'unmatchedRequest', handler: 'test/local/fixtures/not-found-handler.ts' };

interface Echo {
  event: APIGatewayProxyEventV2;
  context: { functionName: string; awsRequestId: string; remainingMs: number };
  moduleInstance: string;
  invocations: number;
}

/** The gateway of the first suite; `rawRequest` talks to it unless told otherwise. */
let gateway: HttpGateway;

describe('local HTTP gateway', () => {
  const loads = new Map<string, number>();
  const logged: unknown[][] = [];
  const inspected: Array<{ route: string; status: unknown }> = [];

  beforeAll(async () => {
    const importModule = createModuleLoader();
    const countingLoader: LoadHandler = (entry) => {
      loads.set(entry, (loads.get(entry) ?? 0) + 1);
      return importModule(entry);
    };
    gateway = await startHttpGateway({
      port: 0,
      routes: fixtureRoutes,
      fallbackRoute,
      loadHandler: countingLoader,
      maxBodyBytes: 64 * 1024,
      logger: { error: (...args) => void logged.push(args) },
      inspectResponse: (route, result) => void inspected.push({ route: route.name, status: (result as { statusCode?: number }).statusCode }),
      extraRoutes: (request, response) => {
        if (!request.url?.startsWith('/_local/')) return false;
        response.writeHead(200, { 'content-type': 'text/plain' }).end('diagnostics');
        return true;
      },
    });
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  const echoOf = async (path: string, init?: RequestInit): Promise<Echo> => {
    const response = await fetch(`${gateway.url}${path}`, init);
    expect(response.status).toBe(200);
    return (await response.json()) as Echo;
  };

  it('shows each routed answer to the inspector before sending it, and no unmatched or diagnostic one', async () => {
    // Given nothing inspected yet
    inspected.length = 0;

    // When a routed request, an unmatched one and a diagnostic one are made
    await fetch(`${gateway.url}/v1/things/inspected`);
    await fetch(`${gateway.url}/v1/nowhere`);
    await fetch(`${gateway.url}/_local/anything`);

    // Then only the routed answer was inspected, with its route
    expect(inspected).toEqual([{ route: 'retrieveThing', status: 200 }]);
  });

  it('builds a payload 2.0 event with the route key and URL-decoded path parameters', async () => {
    // When a request matches a route with a parameter
    const response = await fetch(`${gateway.url}/v1/things/th%20ing%2F1`, { headers: { 'user-agent': 'gateway-test' } });
    const { event, context } = (await response.json()) as Echo;

    // Then the handler sees API Gateway's event for that route
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /v1/things/{id}',
      rawPath: '/v1/things/th%20ing%2F1',
      rawQueryString: '',
      pathParameters: { id: 'th ing/1' },
      isBase64Encoded: false,
      requestContext: {
        accountId: expect.any(String),
        apiId: expect.any(String),
        domainName: new URL(gateway.url).host,
        domainPrefix: '127.0.0.1',
        http: { method: 'GET', path: '/v1/things/th%20ing%2F1', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'gateway-test' },
        requestId: response.headers.get('apigw-requestid'),
        routeKey: 'GET /v1/things/{id}',
        stage: '$default',
        time: expect.stringMatching(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/),
        timeEpoch: expect.any(Number),
      },
    });
    expect(event).not.toHaveProperty('body');
    expect(event).not.toHaveProperty('queryStringParameters');
    expect(event).not.toHaveProperty('cookies');
    // And a Lambda context for the route's function
    expect(context.functionName).toBe('retrieveThing');
    expect(context.remainingMs).toBeGreaterThan(0);
  });

  it('prefers a static segment over a path parameter and omits pathParameters for routes without any', async () => {
    // When the path matches both /v1/things/search and /v1/things/{id}
    const { event, context } = await echoOf('/v1/things/search');

    // Then the static route wins
    expect(event.routeKey).toBe('GET /v1/things/search');
    expect(context.functionName).toBe('searchThings');
    expect(event).not.toHaveProperty('pathParameters');
  });

  it('passes the raw query string and joins repeated parameters with commas', async () => {
    // When the query repeats a parameter and has an encoded value and a bare flag
    const { event } = await echoOf('/v1/things?expand[]=a&expand[]=b&q=hello%20world&flag');

    // Then rawQueryString is untouched and queryStringParameters is decoded and joined
    expect(event.rawQueryString).toBe('expand[]=a&expand[]=b&q=hello%20world&flag');
    expect(event.queryStringParameters).toEqual({ 'expand[]': 'a,b', q: 'hello world', flag: '' });
  });

  it('lowercases header names, joins repeated headers with commas and moves cookies to `cookies`', async () => {
    // When a request repeats a header and sends cookies
    const { status, body } = await rawRequest('GET', '/v1/things', {
      'X-Repeated': ['one', 'two'],
      'X-Mixed-Case': 'Value',
      Cookie: 'session=abc; theme=dark',
    });

    // Then the event carries them the way API Gateway does
    const { event } = JSON.parse(body.toString()) as Echo;
    expect(status).toBe(200);
    expect(event.headers['x-repeated']).toBe('one,two');
    expect(event.headers['x-mixed-case']).toBe('Value');
    expect(event.headers).not.toHaveProperty('cookie');
    expect(event.cookies).toEqual(['session=abc', 'theme=dark']);
  });

  it('passes JSON and form bodies as text', async () => {
    // When JSON and a form are posted
    const json = await echoOf('/v1/things/th_1', { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"name":"Zoë"}' });
    const form = await echoOf('/v1/things/th_1', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'metadata[a]=1&name=Zo%C3%AB',
    });

    // Then both arrive as the text that was sent
    expect(json.event).toMatchObject({ routeKey: 'POST /v1/things/{id}', body: '{"name":"Zoë"}', isBase64Encoded: false, pathParameters: { id: 'th_1' } });
    expect(form.event).toMatchObject({ body: 'metadata[a]=1&name=Zo%C3%AB', isBase64Encoded: false });
  });

  it('passes binary bodies base64-encoded', async () => {
    // When bytes that are not UTF-8 are posted
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x10, 0x80]);
    const { event } = await echoOf('/v1/things/th_1', { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes });

    // Then the handler gets them intact as base64
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body ?? '', 'base64')).toEqual(bytes);
  });

  it('accepts a body of exactly maxBodyBytes and refuses a larger one with 413 before any handler runs', async () => {
    // Given the number of times the echo handler has run
    const before = (await echoOf('/v1/things')).invocations;

    // When a body at the limit, one byte over it, and an over-limit body without Content-Length are sent
    const atLimit = await fetch(`${gateway.url}/v1/things/th_1`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(64 * 1024) });
    const overLimit = await fetch(`${gateway.url}/v1/things/th_1`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x'.repeat(64 * 1024 + 1),
    });
    const chunked = await rawRequest(
      'POST',
      '/v1/things/th_1',
      { 'content-type': 'text/plain' },
      Array.from({ length: 10 }, () => Buffer.alloc(16 * 1024, 'y')),
    );

    // Then only the first reaches the handler; the others get API Gateway's 413
    expect(atLimit.status).toBe(200);
    expect(overLimit.status).toBe(413);
    expect(await overLimit.json()).toEqual({ message: 'Request Entity Too Large' });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body.toString())).toEqual({ message: 'Request Entity Too Large' });
    expect((await echoOf('/v1/things')).invocations).toBe(before + 2);
  });

  it('sends requests no route matches, by path or by method, to the fallback with route key $default', async () => {
    // When a path matches no route, and a known path is called with a method it lacks
    const unknownPath = await fetch(`${gateway.url}/v2/nothing/here`);
    const wrongMethod = await fetch(`${gateway.url}/v1/things`, { method: 'DELETE' });

    // Then the fallback handler answers both
    expect(unknownPath.status).toBe(404);
    expect(await unknownPath.json()).toEqual({
      routeKey: '$default',
      rawPath: '/v2/nothing/here',
      method: 'GET',
      functionName: 'unmatchedRequest',
      pathParameters: null,
    });
    expect(wrongMethod.status).toBe(404);
    expect(await wrongMethod.json()).toMatchObject({ routeKey: '$default', method: 'DELETE' });
  });

  it('answers 500 Internal Server Error when a handler throws, and logs the error', async () => {
    // When the handler of the route throws
    const response = await fetch(`${gateway.url}/v1/failures`, { method: 'POST' });

    // Then the client gets API Gateway's generic 500 and the error is logged
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal Server Error' });
    expect(logged.some((entry) => entry.some((detail) => detail instanceof Error && detail.message === 'fixture handler failure'))).toBe(true);
  });

  it('maps handler results as API Gateway does: plain values, status codes, headers, cookies and base64 bodies', async () => {
    // When a handler returns a value without statusCode
    const plain = await fetch(`${gateway.url}/v1/plain`);
    // And another returns a structured result with cookies and a base64 body
    const file = await rawRequest('GET', '/v1/files/logo.png', {});

    // Then the first is a 200 JSON response of that value
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(await plain.text()).toBe('{"hello":"world"}');
    // And the second keeps its status and headers, sets both cookies and sends the decoded bytes
    expect(file.status).toBe(201);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-count']).toBe('7');
    expect(file.headers['set-cookie']).toEqual(['session=abc; HttpOnly', 'theme=dark']);
    expect(file.body).toEqual(fileBytes);
  });

  it('imports each handler module once, even under concurrent first requests, and keeps it warm', async () => {
    // When several routes sharing one module and another route are called concurrently, twice over
    const paths = ['/v1/things', '/v1/things/a', '/v1/things/search', '/v1/things/b', '/v1/plain'];
    await Promise.all(paths.map((path) => fetch(`${gateway.url}${path}`).then((response) => response.arrayBuffer())));
    const echoes = await Promise.all(paths.slice(0, 4).map((path) => echoOf(path)));

    // Then each entry was loaded once, and every invocation ran in the same module instance
    expect(loads.get(echo)).toBe(1);
    expect(loads.get('test/local/fixtures/plain-value-handler.ts')).toBe(1);
    expect(new Set(echoes.map((answer) => answer.moduleInstance)).size).toBe(1);
  });

  it('runs concurrent requests concurrently', async () => {
    // When ten requests that each take 300 ms arrive together
    const started = performance.now();
    await Promise.all(Array.from({ length: 10 }, () => echoOf('/v1/things?delayMs=300')));

    // Then together they take about as long as one
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('lets extraRoutes answer diagnostic paths before routing', async () => {
    // When a /_local path is requested
    const response = await fetch(`${gateway.url}/_local/health`);

    // Then extraRoutes answered it, not the fallback
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('diagnostics');
  });
});

describe('stopping the local HTTP gateway', () => {
  it('lets a request in flight finish, then closes its keep-alive connection instead of waiting for it to time out', async () => {
    // Given a keep-alive connection with a 300 ms request in flight
    const stopping = await startHttpGateway({ port: 0, routes: fixtureRoutes, fallbackRoute });
    const agent = new Agent({ keepAlive: true });
    await rawRequest('GET', '/v1/things', {}, [], stopping.url, agent);
    const inFlight = rawRequest('GET', '/v1/things?delayMs=300', {}, [], stopping.url, agent);
    await new Promise((wake) => setTimeout(wake, 50));

    // When the gateway stops
    const started = performance.now();
    await stopping.stop();

    // Then the request got its answer, stopping took about as long as the request (not the 5 s keep-alive
    // timeout), and new connections are refused
    expect((await inFlight).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(fetch(`${stopping.url}/v1/plain`)).rejects.toThrow();
    agent.destroy();
  });
});

describe('a handler slower than the gateway timeout', () => {
  it('gets 503 Service Unavailable, as at API Gateway’s integration timeout', async () => {
    // Given a gateway that waits 100 ms for handlers
    const logs: unknown[][] = [];
    const impatient = await startHttpGateway({
      port: 0,
      routes: fixtureRoutes,
      fallbackRoute,
      timeoutMs: 100,
      logger: { error: (...args) => void logs.push(args) },
    });
    try {
      // When a handler takes 300 ms
      const response = await fetch(`${impatient.url}/v1/things?delayMs=300`);

      // Then the client gets 503 and the timeout is logged
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ message: 'Service Unavailable' });
      expect(logs).toEqual([[expect.stringContaining('listThings did not answer within 100 ms')]]);
    } finally {
      await impatient.stop();
    }
  });
});

/** node:http, for what fetch cannot do: repeated header lines, chunked uploads, a chosen agent. */
function rawRequest(
  method: string,
  path: string,
  headers: OutgoingHttpHeaders,
  chunks: Buffer[] = [],
  base?: string,
  agent?: Agent,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const url = new URL(path, base ?? gateway.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers, agent }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(parts) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}
