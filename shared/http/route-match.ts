/** What route matching needs of a route table entry: an HTTP method (or `ANY`) and an API Gateway path. */
export interface MatchableRoute {
  method: string;
  /** `/v1/webhook_endpoints/{id}`; `{name+}` is a greedy last segment. */
  path: string;
}

/** The route a request resolved to, with its decoded path parameters (undefined when the route has none). */
export interface RouteMatch<R> {
  route: R;
  pathParameters: Record<string, string> | undefined;
}

type Segment = { kind: 'static'; value: string } | { kind: 'param'; name: string } | { kind: 'greedy'; name: string };

/** Segment ranks for API Gateway's "most specific route wins": a static segment beats `{param}` beats `{param+}`. */
const rank = { static: 2, param: 1, greedy: 0 } as const;

/**
 * API Gateway's route selection: only routes with the request's method (else `ANY` routes) are candidates;
 * among those that match, the most specific one wins, comparing segments left to right.
 */
export function compileRoutes<R extends MatchableRoute>(routes: readonly R[]): (method: string, rawPath: string) => RouteMatch<R> | undefined {
  const compiled = routes.map((route) => ({ route, segments: parsePath(route.path) }));
  const byMethod = new Map<string, typeof compiled>();
  for (const entry of compiled) {
    const method = entry.route.method.toUpperCase();
    byMethod.set(method, [...(byMethod.get(method) ?? []), entry]);
  }
  for (const candidates of byMethod.values()) {
    candidates.sort((a, b) => compareSpecificity(b.segments, a.segments));
  }

  return (method, rawPath) => {
    const requestSegments = rawPath.split('/').slice(1);
    for (const candidates of [byMethod.get(method.toUpperCase()), byMethod.get('ANY')]) {
      for (const candidate of candidates ?? []) {
        const pathParameters = matchSegments(candidate.segments, requestSegments);
        if (pathParameters) {
          return { route: candidate.route, pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined };
        }
      }
    }
    return undefined;
  };
}

function parsePath(path: string): Segment[] {
  return path
    .split('/')
    .slice(1)
    .map((segment): Segment => {
      const param = /^\{([^}]+?)(\+?)\}$/.exec(segment);
      if (!param) return { kind: 'static', value: segment };
      return param[2] ? { kind: 'greedy', name: param[1] } : { kind: 'param', name: param[1] };
    });
}

function compareSpecificity(a: Segment[], b: Segment[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const difference = rank[a[index].kind] - rank[b[index].kind];
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

function matchSegments(segments: Segment[], requestSegments: string[]): Record<string, string> | undefined {
  const parameters: Record<string, string> = {};
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index];
    if (segment.kind === 'greedy') {
      const rest = requestSegments.slice(index).join('/');
      if (rest === '') return undefined;
      parameters[segment.name] = decode(rest);
      return parameters;
    }
    const value = requestSegments[index];
    if (value === undefined) return undefined;
    if (segment.kind === 'static') {
      if (value !== segment.value) return undefined;
    } else {
      if (value === '') return undefined;
      parameters[segment.name] = decode(value);
    }
  }
  return segments.length === requestSegments.length ? parameters : undefined;
}

/** Percent-decodes, leaving malformed input as it is (API Gateway passes it through). */
export function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Methods that have a route for this path, sorted (for 405 answers with `Allow`). */
export function allowedMethods(routes: readonly MatchableRoute[], path: string): string[] {
  const methods = [...new Set(routes.map((route) => route.method.toUpperCase()))].filter((method) => method !== 'ANY');
  return methods.filter((method) => compileRoutes(routes.filter((route) => route.method.toUpperCase() === method))(method, path)).sort();
}
