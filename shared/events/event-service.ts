import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { EventRepository } from './event-repository.ts';
import type { SnapshotEvent, ThinEvent } from './event.ts';
import type { ListSnapshotEventsParams } from './schemas.ts';

const retentionMillis = 30 * 24 * 60 * 60 * 1000;

type Bounds = { gt?: number; gte?: number; lt?: number; lte?: number };

/** The filters of `GET /v2/core/events` (times in milliseconds). */
export interface ThinEventFilters {
  object_id?: string;
  types?: string[];
  created?: Bounds;
}

/** A v2 window in milliseconds from bounds in milliseconds (v1 `created` arrives as a window: `createdParam`). */
function timeRange(bounds: Bounds | undefined): TimeRange | undefined {
  if (!bounds) return undefined;
  const from = [bounds.gt === undefined ? undefined : bounds.gt + 1, bounds.gte];
  const to = [bounds.lt === undefined ? undefined : bounds.lt - 1, bounds.lte];
  const defined = (values: Array<number | undefined>) => values.filter((value): value is number => value !== undefined);
  const lower = defined(from);
  const upper = defined(to);
  return { from: lower.length ? Math.max(...lower) : undefined, to: upper.length ? Math.min(...upper) : undefined };
}

/** Reading events: thin (v2) and snapshot (v1), 30 days back. */
export function eventService({ store, clock = systemClock }: { store: EventRepository; clock?: () => number }) {
  return {
    async retrieveThin(scope: Scope, id: string): Promise<ThinEvent> {
      const event = await store.getThin(scope, id, clock());
      if (!event) throw new NotFoundError('event', id);
      return event;
    },

    /** One page of thin events, newest first, starting after `page.startingAfter`. */
    listThin(scope: Scope, page: { limit: number; startingAfter?: string }, filters: ThinEventFilters): Promise<Page<ThinEvent>> {
      return store.listThin(
        scope,
        { limit: page.limit, after: page.startingAfter, objectId: filters.object_id, types: filters.types, created: timeRange(filters.created) },
        clock(),
      );
    },

    async retrieveSnapshot(scope: Scope, id: string): Promise<SnapshotEvent> {
      const now = clock();
      const event = await store.getSnapshot(scope, id, now);
      if (!event || event.created < now - retentionMillis) throw new NotFoundError('event', id);
      return event;
    },

    async listSnapshot(scope: Scope, page: PageRequest, params: ListSnapshotEventsParams): Promise<Page<SnapshotEvent>> {
      if (params.type !== undefined && params.types !== undefined) {
        throw new InvalidRequestError('You may only specify one of these parameters: type, types.', 'parameter_invalid', 'types');
      }
      const types = params.type === '*' ? undefined : params.type !== undefined ? [params.type] : params.types;
      return store.listSnapshot(scope, { page, types, created: params.created, deliverySuccess: params.delivery_success }, clock());
    },
  };
}
