import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';

/**
 * The README's "What works today" table is where a user learns what this service serves: every route of
 * the route table must appear there as a code span `METHOD[/METHOD…] /full/path`, with `:name` for a path
 * parameter, and the table must name nothing the route table does not serve.
 */
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const table = readme.slice(readme.indexOf('| Area | Endpoints |'), readme.indexOf('\n\n', readme.indexOf('| Area | Endpoints |')));
const normalized = (path: string) => path.replace(/\{[a-z_]+\}|:[a-z_]+/g, ':param');

const listed = new Set<string>();
for (const [, methods, path] of table.matchAll(/`((?:GET|POST|DELETE)(?:\/(?:GET|POST|DELETE))*) (\/[^`\s]+)`/g)) {
  for (const method of methods!.split('/')) listed.add(`${method} ${normalized(path!)}`);
}

describe('the README endpoint table', () => {
  it('lists every route of the route table', () => {
    const missing = routes.map((route) => `${route.method} ${normalized(route.path)}`).filter((endpoint) => !listed.has(endpoint));
    expect(missing).toEqual([]);
  });

  it('lists nothing the route table does not serve', () => {
    const served = new Set(routes.map((route) => `${route.method} ${normalized(route.path)}`));
    expect([...listed].filter((endpoint) => !served.has(endpoint))).toEqual([]);
  });
});
