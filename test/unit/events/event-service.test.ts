import { describe, expect, it } from 'vitest';
import { NotFoundError } from '#shared/core/errors.ts';
import type { EventRepository, SnapshotEventQuery, ThinEventQuery } from '#shared/events/event-repository.ts';
import type { SnapshotEvent } from '#shared/events/event.ts';
import { listSnapshotEventsParams } from '#shared/events/schemas.ts';
import { eventService } from '#shared/events/event-service.ts';
import type { Scope } from '#shared/platform/types.ts';

const scope: Scope = { accountId: 'acct_events', livemode: false };
const now = 1_800_000_000_000;
const day = 24 * 60 * 60 * 1000;

/** An event repository that answers with `stored` and records the queries it was asked. */
function setup(stored: SnapshotEvent[] = []) {
  const thinQueries: ThinEventQuery[] = [];
  const snapshotQueries: SnapshotEventQuery[] = [];
  const store: EventRepository = {
    getThin: async () => undefined,
    listThin: async (_scope, query) => {
      thinQueries.push(query);
      return { items: [], hasMore: false };
    },
    getSnapshot: async (_scope, id) => stored.find((event) => event.id === id),
    listSnapshot: async (_scope, query) => {
      snapshotQueries.push(query);
      return { items: [], hasMore: false };
    },
  };
  return { service: eventService({ store, clock: () => now }), thinQueries, snapshotQueries };
}

const list = (params: Record<string, unknown>) => listSnapshotEventsParams.parse(params);

describe('event reads (service on a recording repository)', () => {
  it('turns v1 created bounds in seconds into an inclusive window in milliseconds', async () => {
    const { service, snapshotQueries } = setup();
    await service.listSnapshot(scope, { limit: 10 }, list({ created: { gt: 100, lte: 200 } }));
    await service.listSnapshot(scope, { limit: 10 }, list({ created: { gte: 100, lt: 200 } }));
    await service.listSnapshot(scope, { limit: 10 }, list({ created: 150 }));
    expect(snapshotQueries.map((query) => query.created)).toEqual([
      { from: 101_000, to: 200_999 },
      { from: 100_000, to: 199_999 },
      { from: 150_000, to: 150_999 },
    ]);
  });

  it('takes v2 created bounds in milliseconds as they are', async () => {
    const { service, thinQueries } = setup();
    await service.listThin(scope, { limit: 20, startingAfter: 'evt_9' }, { created: { gt: 5, lte: 9 }, types: ['v1.customer.created'] });
    expect(thinQueries).toEqual([{ limit: 20, after: 'evt_9', objectId: undefined, types: ['v1.customer.created'], created: { from: 6, to: 9 } }]);
  });

  it('reads `*` as every type, refuses type with types, and passes delivery_success on', async () => {
    const { service, snapshotQueries } = setup();
    await service.listSnapshot(scope, { limit: 10 }, list({ type: '*', delivery_success: 'false' }));
    expect(snapshotQueries[0]).toMatchObject({ types: undefined, deliverySuccess: false });
    await expect(service.listSnapshot(scope, { limit: 10 }, list({ type: 'a.b', types: ['c.d'] }))).rejects.toMatchObject({ param: 'types' });
  });

  it('answers not found for an unknown event and for one past the 30 days', async () => {
    const old = { id: 'evt_old', created: now - 31 * day } as SnapshotEvent;
    const recent = { id: 'evt_new', created: now - day } as SnapshotEvent;
    const { service } = setup([old, recent]);
    expect(await service.retrieveSnapshot(scope, 'evt_new')).toBe(recent);
    await expect(service.retrieveSnapshot(scope, 'evt_old')).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.retrieveThin(scope, 'evt_none')).rejects.toBeInstanceOf(NotFoundError);
  });
});
