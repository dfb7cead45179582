import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { allowedMethods, compileRoutes } from '#shared/http/route-match.ts';

describe('route matching', () => {
  it('finds the route and decodes its path parameters', () => {
    const match = compileRoutes(routes)('POST', '/v1/webhook_endpoints/we%5F1');
    expect(match?.route.name).toBe('updateWebhookEndpoint');
    expect(match?.pathParameters).toEqual({ id: 'we_1' });
  });

  it('prefers literal segments over parameters, left to right, as API Gateway does', () => {
    const match = compileRoutes([
      { method: 'POST', path: '/v2/x/{id}' },
      { method: 'POST', path: '/v2/x/special' },
      { method: 'POST', path: '/v2/{proxy+}' },
    ]);
    expect(match('POST', '/v2/x/special')?.route.path).toBe('/v2/x/special');
    expect(match('POST', '/v2/x/other')?.route.path).toBe('/v2/x/{id}');
    expect(match('POST', '/v2/y/z')?.pathParameters).toEqual({ proxy: 'y/z' });
    expect(match('GET', '/v2/x/special')).toBeUndefined();
  });

  it('lists the methods a known path allows', () => {
    expect(allowedMethods(routes, '/v1/webhook_endpoints')).toEqual(['GET', 'POST']);
    expect(allowedMethods(routes, '/v1/webhook_endpoints/we_1')).toEqual(['DELETE', 'GET', 'POST']);
    expect(allowedMethods(routes, '/v1/nothing')).toEqual([]);
  });
});
