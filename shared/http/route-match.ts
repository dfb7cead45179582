import type { Route } from '#functions/routes.ts';

export interface RouteMatch<R> {
  route: R;
  pathParameters: Record<string, string>;
}

type Template = Pick<Route, 'method' | 'path'>;

function segmentsMatch(template: string, path: string): Record<string, string> | undefined {
  const expected = template.split('/');
  const actual = path.split('/');
  if (expected.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i]!;
    const got = actual[i]!;
    if (want.startsWith('{') && want.endsWith('}')) {
      if (got === '') return undefined;
      try {
        params[want.slice(1, -1)] = decodeURIComponent(got);
      } catch {
        return undefined;
      }
    } else if (want !== got) return undefined;
  }
  return params;
}

/** How many literal segments a template has: API Gateway prefers the most specific route. */
const specificity = (template: string) => template.split('/').filter((segment) => !segment.startsWith('{')).length;

/** The route API Gateway would pick for this method and path, with its decoded path parameters. */
export function matchRoute<R extends Template>(routes: readonly R[], method: string, path: string): RouteMatch<R> | undefined {
  let best: RouteMatch<R> | undefined;
  for (const route of routes) {
    if (route.method !== method) continue;
    const pathParameters = segmentsMatch(route.path, path);
    if (pathParameters && (!best || specificity(route.path) > specificity(best.route.path))) best = { route, pathParameters };
  }
  return best;
}

/** Methods that have a route for this path, sorted (for 405 answers). */
export function allowedMethods(routes: readonly Template[], path: string): string[] {
  return [...new Set(routes.filter((route) => segmentsMatch(route.path, path)).map((route) => route.method))].sort();
}
