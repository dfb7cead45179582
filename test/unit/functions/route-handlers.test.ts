import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createLambdaContext } from '#local/lambda-context.ts';
import { routes, type Route } from '#functions/routes.ts';
import { offlineHandlerEnvironment } from '#shared/openapi/document.ts';
import { apiGatewayEvent } from '../../support/api-gateway-event.ts';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Every route of the route table, generated from it as the isolation matrix is: its handler module loads
 * with the configuration a Lambda function gets, exports `handler`, and refuses a request without
 * credentials with the documented 401 in its generation's shape (v1 with `param`, v2 without). No stack
 * runs: a request without credentials is refused before any table call, and the endpoints below name a
 * closed port, so a handler that reached for DynamoDB or SQS first would fail here instead of passing.
 */
const offline = {
  ...offlineHandlerEnvironment,
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  SQS_ENDPOINT: 'http://127.0.0.1:9',
  AWS_ACCESS_KEY_ID: 'offline',
  AWS_SECRET_ACCESS_KEY: 'offline',
  // Counting a failed authentication per address is a table write; the guard is tested in auth-failures.test.ts.
  RATE_LIMIT_AUTH_FAILURES: '0',
};

/** The hosted account-link pages take no API key (the secret in the path is the credential), nor does the OpenAPI document. */
const keyless = (route: Route) => route.path.startsWith('/hosted/') || route.path === '/openapi.json';

/** The route's path with each `{param}` filled with a well-formed id. */
function concrete(route: Route): { path: string; pathParameters: Record<string, string> } {
  const pathParameters: Record<string, string> = {};
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => (pathParameters[name] = `id_${name}`));
  return { path, pathParameters };
}

const load = async (route: Route) => (await import(`../../../${route.handler}`)) as { handler?: unknown };

beforeAll(() => {
  for (const [name, value] of Object.entries(offline)) vi.stubEnv(name, value);
  return () => vi.unstubAllEnvs();
});

describe('every route of the route table, through its handler module', () => {
  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s: the handler module loads and exports a handler', async (_, route) => {
    // Given the route's handler module, loaded as a Lambda cold start loads it
    const module = await load(route);

    // Then it exports the function the stack names as the Lambda handler
    expect(typeof module.handler).toBe('function');
  });

  const keyed = routes.filter((route) => !keyless(route));
  it.each(keyed.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: a request without credentials is a 401 in its API generation’s error shape',
    async (_, route) => {
      // Given the route's handler
      const handler = (await load(route)).handler as Handler;
      const { path, pathParameters } = concrete(route);

      // When it is called without an Authorization header
      const result = await handler(
        apiGatewayEvent({ method: route.method, path, routeKey: `${route.method} ${route.path}`, pathParameters }),
        createLambdaContext({ functionName: route.name }),
      );

      // Then it answers 401 authentication_error, v1 with a null param, v2 without param
      expect(result.statusCode).toBe(401);
      const { error } = JSON.parse(result.body ?? 'null');
      expect(error).toMatchObject({ type: 'authentication_error', code: 'api_key_missing', message: expect.any(String) });
      if (path.startsWith('/v2/')) expect(error).not.toHaveProperty('param');
      else expect(error.param).toBeNull();
    },
  );
});
