import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { contractOf, type HandlerContract } from '#shared/http/contract.ts';
import { offlineHandlerEnvironment } from '#shared/openapi/document.ts';

const contracts = new Map<string, HandlerContract | undefined>();

beforeAll(async () => {
  for (const [name, value] of Object.entries(offlineHandlerEnvironment)) process.env[name] ??= value;
  for (const route of routes) {
    const module = (await import(pathToFileURL(resolve(route.handler)).href)) as { handler?: unknown };
    contracts.set(route.name, contractOf(module.handler));
  }
}, 120_000);

describe('account secret and signing secret grants of the route table', () => {
  it('grants table:read-account-secrets to exactly the GET routes that key page tokens with the account secret', () => {
    // Given every GET route and what its handler declares
    for (const route of routes.filter((entry) => entry.method === 'GET')) {
      const contract = contracts.get(route.name);
      const pages = contract?.kind === 'api' ? contract.pagesWithAccountSecret : false;

      // Then its permissions read account secrets exactly when it needs them (else the local stack refuses, or a grant is wider than needed)
      expect(route.permissions.includes('table:read-account-secrets'), route.name).toBe(pages);
      // …and no GET route may create one
      expect(route.permissions, route.name).not.toContain('table:create-account-secrets');
    }
  });

  it('lets every API POST and DELETE route that reaches the table read and create account secrets (idempotency fingerprints), and no hosted page', () => {
    for (const route of routes.filter((entry) => entry.method !== 'GET' && entry.permissions.includes('table:write'))) {
      const api = contracts.get(route.name)?.kind === 'api';
      for (const permission of ['table:read-account-secrets', 'table:create-account-secrets'] as const) {
        expect(route.permissions.includes(permission), `${route.name} ${permission}`).toBe(api);
      }
    }
  });

  it('gives no route secrets:open (no answer shows a stored secret), and secrets:seal only to the routes that create or write signing secrets', () => {
    expect(routes.filter((route) => route.permissions.includes('secrets:open'))).toEqual([]);
    expect(routes.filter((route) => route.permissions.includes('secrets:seal')).map((route) => route.path)).toEqual([
      '/v1/webhook_endpoints',
      '/v1/webhook_endpoints/{id}',
      '/v2/core/event_destinations',
      '/v2/core/event_destinations/{id}',
      '/v2/core/event_destinations/{id}/enable',
      '/v2/core/event_destinations/{id}/disable',
    ]);
  });
});
