import { createHash } from 'node:crypto';
import type { Route } from '#functions/routes.ts';

/**
 * Route functions per nested stack. Each route brings 10 resources (log group, role, policy, function,
 * version, `live` alias, CodeDeploy deployment group, integration, route, invoke permission) and every 10
 * routes an error alarm, so a full stack holds 404 of CloudFormation's 500 (test/infra/safe-deploys.test.ts).
 */
export const maxRoutesPerStack = 40;

/** The routes of one nested stack: an API area, or a numbered part of one. */
export interface RouteStackGroup {
  /** Construct id of the nested stack: `V2CoreAccounts`, then `V2CoreAccountsPart2`… when the area is split. */
  id: string;
  /** The path prefix its routes share, such as `/v2/core/accounts`. */
  area: string;
  routes: Route[];
}

/**
 * The API area of a path: its first three segments, stopping at the first parameter, so a resource and
 * its sub-paths share one: `/v1/customers/{id}` → `/v1/customers`, `/v2/core/accounts/{account_id}/persons`
 * → `/v2/core/accounts`, `/hosted/account_links/{secret}` → `/hosted/account_links`.
 */
export function apiArea(path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '');
  const firstParameter = segments.findIndex((segment) => segment.startsWith('{'));
  const staticSegments = firstParameter === -1 ? segments : segments.slice(0, firstParameter);
  return `/${staticSegments.slice(0, 3).join('/')}`;
}

/**
 * Groups routes into nested stacks, one per API area. A route's stack depends only on its own path and
 * the names of its area's routes, never on other areas or on order in the route table, so adding a route
 * leaves every other function where it is.
 *
 * Stability matters beyond churn: a route that changes stacks is created in the new one before it is
 * deleted from the old one, and API Gateway refuses a second route with the same key, so that deploy fails.
 *
 * An area with more than `maxRoutesPerStack` routes is split into the fewest numbered parts that each fit,
 * by a jump consistent hash of the route name (Lamping and Veach, 2014): part 1 keeps the area's stack id,
 * and when an area needs one more part, only the routes that land in the new part move. Such a deploy
 * must then go in two steps (remove the moved routes, deploy, restore them, deploy).
 */
export function routeStackGroups(routes: Route[]): RouteStackGroup[] {
  const byArea = new Map<string, Route[]>();
  for (const route of routes) {
    const area = apiArea(route.path);
    byArea.set(area, [...(byArea.get(area) ?? []), route]);
  }

  const groups: RouteStackGroup[] = [];
  const areaOfId = new Map<string, string>();
  for (const [area, areaRoutes] of byArea) {
    const id = stackIdOf(area);
    const clash = areaOfId.get(id);
    if (clash !== undefined) {
      throw new Error(`API areas ${clash} and ${area} would share the nested stack ${id}`);
    }
    areaOfId.set(id, area);

    const parts = splitIntoParts(areaRoutes);
    parts.forEach((partRoutes, index) => {
      if (partRoutes.length > 0) {
        groups.push({ id: index === 0 ? id : `${id}Part${index + 1}`, area, routes: partRoutes });
      }
    });
  }
  return groups;
}

/** `/v2/core/event_destinations` → `V2CoreEventDestinations`; the root path `/` → `Root`. */
function stackIdOf(area: string): string {
  const words = area.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  return words.length === 0 ? 'Root' : words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

function splitIntoParts(routes: Route[]): Route[][] {
  for (let count = Math.ceil(routes.length / maxRoutesPerStack); ; count++) {
    const parts: Route[][] = Array.from({ length: count }, () => []);
    for (const route of routes) {
      parts[jumpConsistentHash(nameKey(route.name), count)]!.push(route);
    }
    if (parts.every((part) => part.length <= maxRoutesPerStack)) {
      return parts;
    }
  }
}

function nameKey(name: string): bigint {
  return createHash('sha256').update(name).digest().readBigUInt64BE(0);
}

/** A bucket in [0, buckets); going from n to n + 1 buckets moves a key only into the new bucket. */
function jumpConsistentHash(key: bigint, buckets: number): number {
  let bucket = -1;
  let next = 0;
  while (next < buckets) {
    bucket = next;
    key = (key * 2862933555777941757n + 1n) & 0xffff_ffff_ffff_ffffn;
    next = Math.floor((bucket + 1) * (2 ** 31 / Number((key >> 33n) + 1n)));
  }
  return bucket;
}
