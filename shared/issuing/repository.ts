import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
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
