import type { Outbox } from '#shared/events/event.ts';
import type { IssuingRepository } from '#shared/issuing/repository.ts';
import type { OwnedResource } from '#shared/owned-resource.ts';
import { memoryOwnedStore } from './fakes.ts';

/**
 * In-memory IssuingRepository (cardholders, cards, authorizations) on the shared `memoryOwnedStore`, with
 * the list rules of the DynamoDB adapter: newest first (by id), `where` entries that are undefined are no
 * filter, other entries are top-level equalities, `created` is an inclusive window in ms (on `created`,
 * which is the time in the id for objects the services make), and both cursors (`endingBefore` gives the
 * page just newer than the cursor, still newest first). `outboxes` keeps the outbox of each successful write.
 */
export function memoryIssuingRepository<T extends OwnedResource & { created: number }>(
  ...initial: T[]
): IssuingRepository<T> & { items: Map<string, T>; outboxes: Outbox[] } {
  const store = memoryOwnedStore<T>(...initial);
  const outboxes: Outbox[] = [];
  return {
    items: store.items,
    outboxes,
    async create(resource, options = {}) {
      const created = await store.create(resource, options);
      if (created && options.outbox) outboxes.push(options.outbox);
      return created;
    },
    get: store.get,
    async replace(next, outbox) {
      const replaced = await store.replace(next, outbox);
      if (replaced && outbox) outboxes.push(outbox);
      return replaced;
    },
    async list(scope, { page, where = {}, created }) {
      const filters = Object.entries(where).filter(([, value]) => value !== undefined);
      const newestFirst = (await store.all(scope))
        .filter((item) => filters.every(([field, value]) => (item as Record<string, unknown>)[field] === value))
        .filter((item) => (created?.from === undefined || item.created >= created.from) && (created?.to === undefined || item.created <= created.to))
        .sort((a, b) => (a.id < b.id ? 1 : -1));
      if (page.endingBefore !== undefined) {
        const newer = newestFirst.filter((item) => item.id > page.endingBefore!);
        return { items: newer.slice(Math.max(0, newer.length - page.limit)), hasMore: newer.length > page.limit };
      }
      const after = page.startingAfter === undefined ? newestFirst : newestFirst.filter((item) => item.id < page.startingAfter!);
      return { items: after.slice(0, page.limit), hasMore: after.length > page.limit };
    },
  };
}
