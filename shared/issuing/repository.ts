import type { TimeRange } from '#shared/events/event-repository.ts';
import type { Page, PageRequest } from '#shared/paging.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';

/** One page of an issuing list: newest first, filtered by equal fields and a creation window. */
export interface IssuingListQuery {
  page: PageRequest;
  /** Stored fields that must equal these values (`cardId`, `status`, …). */
  where?: Record<string, unknown>;
  created?: TimeRange;
}

/** Storage of one issuing kind (cardholders, cards, authorizations): in the owner's partition, versioned. */
export interface IssuingRepository<T extends OwnedResource> extends Pick<OwnedResourceStore<T>, 'create' | 'get' | 'replace'> {
  list(scope: Scope, query: IssuingListQuery): Promise<Page<T>>;
}

/** The creation window (epoch ms, inclusive) of v1 `created` bounds given in Unix seconds. */
export function createdWindow(bounds: { gt?: number; gte?: number; lt?: number; lte?: number } | undefined): TimeRange | undefined {
  if (!bounds) return undefined;
  const lower = [bounds.gt === undefined ? undefined : (bounds.gt + 1) * 1000, bounds.gte === undefined ? undefined : bounds.gte * 1000];
  const upper = [bounds.lt === undefined ? undefined : bounds.lt * 1000 - 1, bounds.lte === undefined ? undefined : bounds.lte * 1000 + 999];
  const defined = (values: Array<number | undefined>) => values.filter((value): value is number => value !== undefined);
  const from = defined(lower);
  const to = defined(upper);
  return { from: from.length ? Math.max(...from) : undefined, to: to.length ? Math.min(...to) : undefined };
}
