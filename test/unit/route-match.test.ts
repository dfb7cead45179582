import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { allowedMethods, matchRoute } from '#shared/http/route-match.ts';

describe('route matching', () => {
  it('finds the route and decodes its path parameters', () => {
    const match = matchRoute(routes, 'POST', '/v1/webhook_endpoints/we%5F1');
    expect(match?.route.name).toBe('updateWebhookEndpoint');
    expect(match?.pathParameters).toEqual({ id: 'we_1' });
  });

  it('prefers literal segments over parameters', () => {
    const table = [
      { method: 'POST' as const, path: '/v2/x/{id}' },
      { method: 'POST' as const, path: '/v2/x/special' },
    ];
    expect(matchRoute(table, 'POST', '/v2/x/special')?.route.path).toBe('/v2/x/special');
  });

  it('lists the methods a known path allows', () => {
    expect(allowedMethods(routes, '/v1/webhook_endpoints').sort()).toEqual(['GET', 'POST']);
    expect(allowedMethods(routes, '/v1/nothing')).toEqual([]);
  });
});
