import type { Construct } from 'constructs';
import * as z from 'zod';
import type { Route } from '#functions/routes.ts';

/** The throttle classes of docs/capacity.md (*Per-route throttles*), each a stage route setting. */
export type RouteThrottleClass = 'meterEvents' | 'meterEventStream' | 'writes' | 'reads' | 'hostedPages' | 'document';

/** Steady requests a second and burst, as API Gateway's route settings take them. */
export interface Throttle {
  rate: number;
  burst: number;
}

/**
 * Defaults sized in docs/capacity.md (*Per-route throttles*): every class below the account's regional quota
 * (10,000 requests a second, 5,000 burst), each alone within the table's warm write throughput (30,000 units
 * a second) at its measured write cost.
 */
export const defaultRouteThrottles: Record<RouteThrottleClass, Throttle> = {
  meterEvents: { rate: 5_000, burst: 2_500 },
  meterEventStream: { rate: 100, burst: 100 },
  writes: { rate: 1_000, burst: 500 },
  reads: { rate: 2_000, burst: 1_000 },
  hostedPages: { rate: 20, burst: 40 },
  document: { rate: 5, burst: 10 },
};

/** The context key of each class: `-c routeThrottleReads=3000/1500`. */
export const routeThrottleContextKeys: Record<RouteThrottleClass, string> = {
  meterEvents: 'routeThrottleMeterEvents',
  meterEventStream: 'routeThrottleMeterEventStream',
  writes: 'routeThrottleWrites',
  reads: 'routeThrottleReads',
  hostedPages: 'routeThrottleHostedPages',
  document: 'routeThrottleDocument',
};

const meterEventPaths = new Set([
  '/v1/billing/meter_events',
  '/v2/billing/meter_events',
  '/v1/billing/meter_event_adjustments',
  '/v2/billing/meter_event_adjustments',
]);

/** The class of a route: meter events, the stream, hosted pages and the OpenAPI document by path; the rest by method. */
export function routeThrottleClass(route: Pick<Route, 'method' | 'path'>): RouteThrottleClass {
  if (route.path === '/openapi.json') return 'document';
  if (route.path.startsWith('/hosted/')) return 'hostedPages';
  if (route.method === 'POST' && meterEventPaths.has(route.path)) return 'meterEvents';
  if (route.method === 'POST' && route.path === '/v2/billing/meter_event_stream') return 'meterEventStream';
  return route.method === 'GET' ? 'reads' : 'writes';
}

const throttleSchema = z
  .string()
  .regex(/^\d{1,6}\/\d{1,6}$/, 'rate/burst in whole requests, such as 2000/1000')
  .transform((value) => {
    const [rate, burst] = value.split('/').map(Number) as [number, number];
    return { rate, burst };
  })
  .refine(({ rate, burst }) => rate > 0 && burst > 0, 'a positive rate and burst');

/**
 * Each class's throttle: the context value `rate/burst` of its key, else its default, capped at the stage's
 * own throttle (API Gateway applies the stage's anyway; a higher route setting would only mislead).
 */
export function routeThrottles(scope: Construct, stage: Throttle): Record<RouteThrottleClass, Throttle> {
  const resolved = { ...defaultRouteThrottles };
  for (const [throttleClass, key] of Object.entries(routeThrottleContextKeys) as [RouteThrottleClass, string][]) {
    const given: unknown = scope.node.tryGetContext(key);
    if (given !== undefined && given !== '') {
      const parsed = throttleSchema.safeParse(String(given));
      if (!parsed.success) throw new Error(`${key} is not valid (${parsed.error.issues[0]!.message}), got ${JSON.stringify(given)}`);
      resolved[throttleClass] = parsed.data;
    }
    const { rate, burst } = resolved[throttleClass];
    resolved[throttleClass] = { rate: Math.min(rate, stage.rate), burst: Math.min(burst, stage.burst) };
  }
  return resolved;
}
