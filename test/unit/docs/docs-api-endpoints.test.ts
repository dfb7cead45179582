import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';

/**
 * The endpoint table of docs/api.md ("Endpoints") is where a user learns what this service serves: every route of
 * the route table must appear there as a code span `METHOD[/METHOD…] /full/path`, with `:name` for a path
 * parameter, and the table must name nothing the route table does not serve.
 */
const apiDoc = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
const start = apiDoc.indexOf('| Area | Endpoints |');
const table = start < 0 ? '' : apiDoc.slice(start, apiDoc.indexOf('\n\n', start));
const normalized = (path: string) => path.replace(/\{[a-z_]+\}|:[a-z_]+/g, ':param');

const listed = new Set<string>();
for (const [, methods, path] of table.matchAll(/`((?:GET|POST|DELETE)(?:\/(?:GET|POST|DELETE))*) (\/[^`\s]+)`/g)) {
  for (const method of methods!.split('/')) listed.add(`${method} ${normalized(path!)}`);
}

describe('the endpoint table of docs/api.md', () => {
  it('is there to check', () => {
    expect(table).toContain('| Area | Endpoints |');
  });

  it('lists every route of the route table', () => {
    const missing = routes.map((route) => `${route.method} ${normalized(route.path)}`).filter((endpoint) => !listed.has(endpoint));
    expect(missing).toEqual([]);
  });

  it('lists nothing the route table does not serve', () => {
    const served = new Set(routes.map((route) => `${route.method} ${normalized(route.path)}`));
    expect([...listed].filter((endpoint) => !served.has(endpoint))).toEqual([]);
  });
});
