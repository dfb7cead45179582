import { InvalidRequestError, NotFoundError } from '#shared/errors.ts';
import { v1PageRequest, type Page, type V2PageState } from '#shared/http/pagination.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { EventStore, TimeRange } from './event-store.ts';
import type { SnapshotEvent, ThinEvent } from './event.ts';
import type { ListSnapshotEventsParams } from './schemas.ts';

const retentionMillis = 30 * 24 * 60 * 60 * 1000;

type Bounds = { gt?: number; gte?: number; lt?: number; lte?: number };

/** A window in milliseconds from bounds in `unit` milliseconds (1 for v2 times, 1000 for v1 seconds). */
function timeRange(bounds: Bounds | undefined, unit: number): TimeRange | undefined {
  if (!bounds) return undefined;
  const from = [bounds.gt === undefined ? undefined : (bounds.gt + 1) * unit, bounds.gte === undefined ? undefined : bounds.gte * unit];
  const to = [bounds.lt === undefined ? undefined : bounds.lt * unit - 1, bounds.lte === undefined ? undefined : (bounds.lte + 1) * unit - 1];
  const defined = (values: Array<number | undefined>) => values.filter((value): value is number => value !== undefined);
  const lower = defined(from);
  const upper = defined(to);
  return { from: lower.length ? Math.max(...lower) : undefined, to: upper.length ? Math.min(...upper) : undefined };
}

/** Reading events: thin (v2) and snapshot (v1), 30 days back. */
export function eventService({ store, clock = Date.now }: { store: EventStore; clock?: () => number }) {
  return {
    async retrieveThin(scope: Scope, id: string): Promise<ThinEvent> {
      const event = await store.getThin(scope, id, clock());
      if (!event) throw new NotFoundError('event', id);
      return event;
    },

    /** One page of thin events and, when there is more, the state of the next page. */
    async listThin(scope: Scope, state: V2PageState): Promise<{ items: ThinEvent[]; next?: V2PageState }> {
      const filters = (state.filters ?? {}) as { object_id?: string; types?: string[]; created?: Bounds };
      const page = await store.listThin(
        scope,
        { limit: state.limit, after: state.cursor, objectId: filters.object_id, types: filters.types, created: timeRange(filters.created, 1) },
        clock(),
      );
      return { items: page.items, next: page.hasMore ? { ...state, cursor: page.items.at(-1)!.id } : undefined };
    },

    async retrieveSnapshot(scope: Scope, id: string): Promise<SnapshotEvent> {
      const now = clock();
      const event = await store.getSnapshot(scope, id, now);
      if (!event || event.created < now - retentionMillis) throw new NotFoundError('event', id);
      return event;
    },

    listSnapshot(scope: Scope, params: ListSnapshotEventsParams): Promise<Page<SnapshotEvent>> {
      if (params.type !== undefined && params.types !== undefined) {
        throw new InvalidRequestError('You may only specify one of these parameters: type, types.', 'parameter_invalid', 'types');
      }
      const types = params.type === '*' ? undefined : params.type !== undefined ? [params.type] : params.types;
      const created = params.created && 'eq' in params.created ? { gte: params.created.eq, lte: params.created.eq } : params.created;
      return store.listSnapshot(
        scope,
        { page: v1PageRequest(params), types, created: timeRange(created, 1000), deliverySuccess: params.delivery_success },
        clock(),
      );
    },
  };
}

export type EventService = ReturnType<typeof eventService>;
