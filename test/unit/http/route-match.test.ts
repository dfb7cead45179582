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

  it('keeps the test helpers named by a literal segment apart from the routes with an id beside them', () => {
    const match = compileRoutes(routes);
    expect(match('POST', '/v1/test_helpers/issuing/transactions/create_force_capture')?.route.name).toBe('createForceCaptureTestIssuingTransaction');
    expect(match('POST', '/v1/test_helpers/issuing/transactions/create_unlinked_refund')?.route.name).toBe('createUnlinkedRefundTestIssuingTransaction');
    expect(match('POST', '/v1/test_helpers/issuing/transactions/ipi_1/refund')).toMatchObject({
      route: { name: 'refundTestIssuingTransaction' },
      pathParameters: { id: 'ipi_1' },
    });
    // A literal name where the id goes is just an id that matches nothing
    expect(match('POST', '/v1/test_helpers/issuing/transactions/create_force_capture/refund')?.pathParameters).toEqual({ id: 'create_force_capture' });
    expect(match('GET', '/v1/test_helpers/issuing/transactions/create_force_capture')).toBeUndefined();
    expect(match('POST', '/v1/issuing/authorizations/iauth_1/approve')?.route.name).toBe('approveIssuingAuthorization');
    expect(match('POST', '/v1/issuing/authorizations/iauth_1/decline')?.route.name).toBe('declineIssuingAuthorization');
    expect(match('POST', '/v1/issuing/authorizations/iauth_1')?.route.name).toBe('updateIssuingAuthorization');
  });

  it('sends GET /v1/<resource>/search to the search, not to retrieve an object named "search"', () => {
    const match = compileRoutes(routes);
    for (const [resource, name] of [
      ['customers', 'searchCustomers'],
      ['products', 'searchProducts'],
      ['prices', 'searchPrices'],
      ['subscriptions', 'searchSubscriptions'],
    ]) {
      expect(match('GET', `/v1/${resource}/search`)).toEqual({ route: expect.objectContaining({ name }), pathParameters: undefined });
      expect(match('GET', `/v1/${resource}/id_1`)?.pathParameters).toEqual({ id: 'id_1' });
    }
    // Only GET is a search: a POST there is an update of an object named "search" (which does not exist).
    expect(match('POST', '/v1/customers/search')).toMatchObject({ route: { name: 'updateCustomer' }, pathParameters: { id: 'search' } });
    expect(allowedMethods(routes, '/v1/customers/search')).toEqual(['DELETE', 'GET', 'POST']);
  });

  it('lists the methods a known path allows', () => {
    expect(allowedMethods(routes, '/v1/webhook_endpoints')).toEqual(['GET', 'POST']);
    expect(allowedMethods(routes, '/v1/webhook_endpoints/we_1')).toEqual(['DELETE', 'GET', 'POST']);
    expect(allowedMethods(routes, '/v1/nothing')).toEqual([]);
  });
});
