import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { SnapshotEvent, ThinEvent } from './event.ts';

export interface ThinEventQuery {
  limit: number;
  /** Continue after this event id. */
  after?: string;
  objectId?: string;
  types?: string[];
  created?: TimeRange;
}

export interface SnapshotEventQuery {
  page: PageRequest;
  /** Exact types, or a `prefix.*` wildcard as one entry ending in `.*`. */
  types?: string[];
  created?: TimeRange;
  /** true: every delivery succeeded; false: some are pending or gave up. */
  deliverySuccess?: boolean;
}

/** Reading stored events (they are written through outboxes). Expired events are never returned. */
export interface EventRepository {
  getThin(scope: Scope, id: string, now: number): Promise<ThinEvent | undefined>;
  listThin(scope: Scope, query: ThinEventQuery, now: number): Promise<Page<ThinEvent>>;
  getSnapshot(scope: Scope, id: string, now: number): Promise<SnapshotEvent | undefined>;
  listSnapshot(scope: Scope, query: SnapshotEventQuery, now: number): Promise<Page<SnapshotEvent>>;
}
