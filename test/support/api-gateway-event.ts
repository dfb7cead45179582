import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export interface EventInput {
  method: string;
  path: string;
  routeKey?: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  pathParameters?: Record<string, string>;
  isBase64Encoded?: boolean;
}

/** Builds an API Gateway HTTP API (payload format 2.0) event as the gateway would deliver it. */
export function apiGatewayEvent(input: EventInput): APIGatewayProxyEventV2 {
  const headers = Object.fromEntries(Object.entries(input.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const query = input.query ?? '';
  const queryStringParameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(query)) {
    queryStringParameters[name] = queryStringParameters[name] === undefined ? value : `${queryStringParameters[name]},${value}`;
  }
  const now = new Date();
  return {
    version: '2.0',
    routeKey: input.routeKey ?? `${input.method} ${input.path}`,
    rawPath: input.path,
    rawQueryString: query,
    headers,
    ...(query ? { queryStringParameters } : {}),
    ...(input.pathParameters ? { pathParameters: input.pathParameters } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'local',
      domainName: '127.0.0.1',
      domainPrefix: '127',
      http: { method: input.method, path: input.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: headers['user-agent'] ?? 'test' },
      requestId: `test-${Math.random().toString(36).slice(2)}`,
      routeKey: input.routeKey ?? `${input.method} ${input.path}`,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(input.body !== undefined ? { body: input.body } : {}),
    isBase64Encoded: input.isBase64Encoded ?? false,
  };
}
