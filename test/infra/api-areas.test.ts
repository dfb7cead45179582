import { describe, expect, it } from 'vitest';
import type { Route } from '#functions/routes.ts';
import { apiArea, maxRoutesPerStack, routeStackGroups, type RouteStackGroup } from '#infra/api-areas.ts';

/** A route of `path`; the handler and permissions play no part in grouping. */
function route(name: string, path: string, method: Route['method'] = 'GET'): Route {
  return { name, method, path, handler: 'functions/http/fallback.ts', permissions: [] };
}

/** Route name → construct id of its nested stack. */
function stackIdByRoute(groups: RouteStackGroup[]): Map<string, string> {
  return new Map(groups.flatMap((group) => group.routes.map((each) => [each.name, group.id] as const)));
}

describe('API areas', () => {
  it.each([
    ['/v1/customers', '/v1/customers'],
    ['/v1/customers/{id}', '/v1/customers'],
    ['/v1/billing/meters/{id}/event_summaries', '/v1/billing/meters'],
    ['/v1/test_helpers/issuing/authorizations/{id}/capture', '/v1/test_helpers/issuing'],
    ['/v2/core/accounts/{account_id}/persons/{id}', '/v2/core/accounts'],
    ['/hosted/account_links/{secret}', '/hosted/account_links'],
    ['/{id}', '/'],
  ])('puts %s in the area %s', (path, area) => {
    // Given a route path
    // When its area is derived
    // Then it is its first three segments, cut at the first parameter
    expect(apiArea(path)).toBe(area);
  });

  it('gives each area one nested stack named after it', () => {
    // Given routes of three areas, listed out of order
    const routes = [
      route('createEventDestination', '/v2/core/event_destinations', 'POST'),
      route('listCustomers', '/v1/customers'),
      route('retrieveEventDestination', '/v2/core/event_destinations/{id}'),
      route('retrieveCustomer', '/v1/customers/{id}'),
      route('showAccountLink', '/hosted/account_links/{secret}'),
    ];

    // When they are grouped
    const groups = routeStackGroups(routes);

    // Then each area is one group, with its routes
    expect(groups.map(({ id, area, routes: grouped }) => ({ id, area, names: grouped.map((each) => each.name) }))).toEqual([
      { id: 'V2CoreEventDestinations', area: '/v2/core/event_destinations', names: ['createEventDestination', 'retrieveEventDestination'] },
      { id: 'V1Customers', area: '/v1/customers', names: ['listCustomers', 'retrieveCustomer'] },
      { id: 'HostedAccountLinks', area: '/hosted/account_links', names: ['showAccountLink'] },
    ]);
  });

  it('leaves every route in its stack when routes are added or reordered', () => {
    // Given a route table and where its routes are
    const before = [route('listCustomers', '/v1/customers'), route('retrieveCustomer', '/v1/customers/{id}'), route('listAccounts', '/v2/core/accounts')];
    const placed = stackIdByRoute(routeStackGroups(before));

    // When routes are added to an existing area and a new one, and the table is reordered
    const after = [route('listPersons', '/v2/core/accounts/{account_id}/persons'), route('listProducts', '/v1/products'), ...[...before].reverse()];
    const replaced = stackIdByRoute(routeStackGroups(after));

    // Then every earlier route is still in the same stack
    for (const [name, id] of placed) {
      expect(replaced.get(name), name).toBe(id);
    }
  });

  it('splits an area past the cap into numbered parts, moving a route only into a new part as the area grows', () => {
    let previous = new Map<string, string>();
    for (let count = 1; count <= 4 * maxRoutesPerStack; count++) {
      // Given an area of `count` routes
      const routes = Array.from({ length: count }, (_, index) => route(`operation${index}`, `/v1/things/{id}/operation_${index}`, 'POST'));

      // When they are grouped
      const groups = routeStackGroups(routes);
      const placed = stackIdByRoute(groups);

      // Then no part holds more than the cap, and the first part keeps the area's id
      expect(Math.max(...groups.map((group) => group.routes.length)), `${count} routes`).toBeLessThanOrEqual(maxRoutesPerStack);
      expect(groups.map((group) => group.id)).toContain('V1Things');
      // And a route that changes stack goes to a part that did not exist before
      const existing = new Set(previous.values());
      for (const [name, id] of previous) {
        if (placed.get(name) !== id) {
          expect(existing.has(placed.get(name)!), `${name} at ${count} routes`).toBe(false);
        }
      }
      previous = placed;
    }
    // And the area did get split
    expect(new Set(previous.values()).size).toBeGreaterThanOrEqual(4);
    expect([...new Set(previous.values())]).toContain('V1ThingsPart2');
  });

  it('refuses two areas that would share a nested stack id', () => {
    // Given two areas that differ only in punctuation
    const routes = [route('listFooBars', '/v1/foo_bars'), route('listFooDashBars', '/v1/foo-bars')];

    // When they are grouped
    // Then synth stops, naming both
    expect(() => routeStackGroups(routes)).toThrow('API areas /v1/foo_bars and /v1/foo-bars would share the nested stack V1FooBars');
  });
});
