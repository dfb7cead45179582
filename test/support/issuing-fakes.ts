import type { Outbox } from '#shared/events/event.ts';
import type { Authorization } from '#shared/issuing/authorization.ts';
import type { IssuingCard } from '#shared/issuing/card.ts';
import type { Cardholder } from '#shared/issuing/cardholder.ts';
import type { IssuingRepository } from '#shared/issuing/repository.ts';
import type { IssuingTransaction, TransactionRepository } from '#shared/issuing/transaction.ts';
import type { OwnedResource } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryOwnedStore } from './fakes.ts';

/** Mid-June 2026, UTC: when the stored issuing objects of the builders below were made. */
export const june2026 = Date.UTC(2026, 5, 15, 12);

/** A stored active individual cardholder `ich_1` in `scope`, as a repository holds it; `overrides` change any field. */
export const storedCardholder = (scope: Scope, overrides: Partial<Cardholder> = {}): Cardholder => ({
  id: 'ich_1',
  scope,
  version: 1,
  created: june2026,
  name: 'Jenny Rosen',
  type: 'individual',
  status: 'active',
  email: null,
  phoneNumber: null,
  billingAddress: { city: 'SF', country: 'US', line1: '1 Main', line2: null, postal_code: '94111', state: null },
  company: null,
  individual: null,
  preferredLocales: null,
  metadata: {},
  ...overrides,
});

/** A stored active virtual USD card `ic_1` of cardholder `ich_1` in `scope`; `overrides` change any field. */
export const storedCard = (scope: Scope, overrides: Partial<IssuingCard> = {}): IssuingCard => ({
  id: 'ic_1',
  scope,
  version: 1,
  created: june2026,
  cardholderId: 'ich_1',
  currency: 'usd',
  type: 'virtual',
  status: 'active',
  brand: 'Visa',
  last4: '4242',
  expMonth: 12,
  expYear: 2028,
  secondLine: null,
  cancellationReason: null,
  metadata: {},
  ...overrides,
});

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

/**
 * In-memory TransactionRepository over `authorizations` (the memory repository the authorization service
 * uses): `record` checks every version (and that created ids are free) and writes in one synchronous
 * step, as the DynamoDB transaction is atomic, so a stale change writes nothing and answers false.
 * `outboxes` keeps the outbox of each successful write (records and replaces alike).
 */
export function memoryTransactionRepository(
  authorizations: ReturnType<typeof memoryIssuingRepository<Authorization>>,
  ...initial: IssuingTransaction[]
): TransactionRepository & { items: Map<string, IssuingTransaction>; outboxes: Outbox[] } {
  const store = memoryIssuingRepository<IssuingTransaction>(...initial);
  const stored = (items: Map<string, OwnedResource>, next: OwnedResource) =>
    [...items.values()].find((item) => item.id === next.id && item.scope.accountId === next.scope.accountId && item.scope.livemode === next.scope.livemode);
  return {
    ...store,
    async record({ authorization, created, replaced = [] }, outbox) {
      const fresh =
        (authorization === undefined || stored(authorizations.items, authorization)?.version === authorization.version - 1) &&
        replaced.every((transaction) => stored(store.items, transaction)?.version === transaction.version - 1) &&
        created.every((transaction) => stored(store.items, transaction) === undefined);
      if (!fresh) return false;
      // The memory stores write synchronously when called: nothing can come between the check and these.
      await Promise.all([
        ...(authorization ? [authorizations.replace(authorization)] : []),
        ...replaced.map((transaction) => store.replace(transaction)),
        ...created.map((transaction) => store.create(transaction)),
      ]);
      store.outboxes.push(outbox);
      return true;
    },
  };
}
