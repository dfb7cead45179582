import { config } from '#shared/core/config.ts';

/** A cache key of something in `scope`: the owner, the mode, then `parts`. */
export const scopedKey = (scope: { accountId: string; livemode: boolean }, ...parts: string[]): string => [scope.accountId, scope.livemode, ...parts].join('|');

/**
 * How stale each cached read may be: the one list of the service's staleness windows (docs/architecture.md, *Caches*).
 * Each is applied by a `readThrough` in a `wiring.ts` (or the HTTP pipeline's wiring); nothing in a
 * domain port knows about caching.
 */
export const cacheWindows = {
  /** API key records: a revoked or rolled key is accepted this long by a process that read it (API_KEY_CACHE_SECONDS). */
  apiKeys: () => config().API_KEY_CACHE_SECONDS * 1000,
  /** A platform's accounts v2 feature flag (the gate on accounts, persons and account links). */
  accountsV2Gate: () => 60_000,
  /** That no account link has a secret's hash (links are made with random secrets, so none can appear later). */
  unknownLinks: () => 60_000,
  /** A meter event session (its expiry is checked on every request, so only a deleted session lingers). */
  meterEventSessions: () => 60_000,
  /** That a customer exists (only found customers are kept): events for a customer deleted since still count this long. */
  foundCustomers: () => 10_000,
  /** Per-account secrets never change once written. */
  accountSecrets: () => Number.POSITIVE_INFINITY,
  /**
   * Opened webhook signing secrets, per sealed value and context (one KMS Decrypt per secret per process per
   * window). A sealed value never changes meaning; the window bounds how long a plaintext stays in memory
   * and how long a process still signs with a key KMS would now refuse (a disabled key, a revoked grant).
   */
  openedSecrets: () => 300_000,
  /** The service secret (the key of queue messages' seals) never changes once written. */
  serviceSecret: () => Number.POSITIVE_INFINITY,
  /**
   * The meter a meter event names (by event name). A deactivation reaches a warm meter-events process
   * this late: an event accepted in that gap is refused when processed (processing reads meters afresh)
   * and reported as `archived_meter`, like one accepted just before the deactivation.
   */
  metersByEventName: () => 1_000,
  /** The destination or endpoint a delivery goes to (never older than the version its fan-out saw). */
  deliveryTargets: () => 1_000,
  /** The destination a ping acts on: a steady stream of pings reads it once a second. */
  pingedDestinations: () => 1_000,
};

/**
 * What writes invalidate: a write through a store wrapped by `invalidating(store, topic)` empties, in its
 * process, every cache made with that topic in `invalidatedBy`.
 */
export const cacheTopics = {
  meters: 'meters',
  eventDestinations: 'event-destinations',
  webhookEndpoints: 'webhook-endpoints',
} as const;

export interface CachePolicy<T, A extends unknown[] = unknown[]> {
  /** How long a value read is trusted (ms); 0 reads every time. */
  ttlMillis: number;
  /** Most values kept; the least recently used goes first. */
  maxEntries: number;
  /** Which values are kept (default: all but `undefined`, so a missing item is read again). */
  keeps?: (value: T) => boolean;
  /** Whether a kept value will do for this call (e.g. it is at least the version the caller knows of); else it is read again. */
  accepts?: (value: T, ...args: A) => boolean;
  /** Topics whose writes (in this process, {@link invalidating}) drop every value kept, and any read they overlapped. */
  invalidatedBy?: readonly string[];
}

const defaultMaxEntries = 10_000;

/** Per topic: how many writes began or ended in this process, and the caches to empty on each. */
const topics = new Map<string, { writes: number; caches: Set<Map<string, unknown>> }>();
const topic = (name: string) => {
  let found = topics.get(name);
  if (!found) {
    found = { writes: 0, caches: new Set() };
    topics.set(name, found);
  }
  return found;
};
const writesTo = (names: readonly string[]) => names.reduce((sum, name) => sum + topic(name).writes, 0);

/** Empties every cache that `name`'s writes invalidate, in this process. */
function noteWrite(name: string): void {
  const found = topic(name);
  found.writes++;
  for (const entries of found.caches) entries.clear();
}

/**
 * `store` with its `writes` methods announced to the caches invalidated by `name`, before and after each
 * call: in one process (the local stack serves every handler in one) a cached copy is never older than
 * the last write through the store. Other processes (other Lambdas) see the change within their window.
 */
export function invalidating<S extends object>(store: S, name: string, writes: ReadonlyArray<keyof S> = ['create', 'replace', 'delete'] as never): S {
  const wrapped = { ...store };
  for (const method of writes) {
    const write = store[method];
    if (typeof write !== 'function') continue;
    wrapped[method] = (async (...args: unknown[]) => {
      noteWrite(name);
      try {
        return await write.apply(store, args);
      } finally {
        noteWrite(name);
      }
    }) as S[keyof S];
  }
  return wrapped;
}

/**
 * The one cache mechanism: `read` wrapped so that a value read for a key is reused for `ttlMillis`, in a
 * bounded, least-recently-used map per wrapper. Concurrent reads of one key share one call; a failed read
 * is not kept.
 */
export function readThrough<A extends unknown[], T>(
  read: (...args: A) => Promise<T>,
  keyOf: (...args: A) => string,
  {
    ttlMillis,
    maxEntries = defaultMaxEntries,
    keeps = (value) => value !== undefined,
    accepts,
    invalidatedBy = [],
  }: Partial<CachePolicy<T, A>> & Pick<CachePolicy<T, A>, 'ttlMillis'>,
  clock: () => number = Date.now,
): (...args: A) => Promise<T> {
  const entries = new Map<string, { value: Promise<T>; until: number }>();
  for (const name of invalidatedBy) topic(name).caches.add(entries);
  return async (...args) => {
    if (ttlMillis <= 0) return read(...args);
    const key = keyOf(...args);
    const now = clock();
    const found = entries.get(key);
    entries.delete(key);
    if (found && found.until > now) {
      entries.set(key, found);
      const value = await found.value;
      if (!accepts || accepts(value, ...args)) return value;
      if (entries.get(key) === found) entries.delete(key);
    }
    const writesBefore = writesTo(invalidatedBy);
    const entry = { value: read(...args), until: now + ttlMillis };
    entries.set(key, entry);
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    const drop = () => {
      if (entries.get(key) === entry) entries.delete(key);
    };
    entry.value.then((value) => {
      // A read that overlapped a write may have seen the item as it was before: not kept.
      if (!keeps(value) || writesTo(invalidatedBy) !== writesBefore) drop();
    }, drop);
    return entry.value;
  };
}

/**
 * `read` cached as {@link readThrough} does, and what it does not find (`undefined`) cached too, for the same
 * window but in a map of its own: a flood of lookups of things nobody made (guessed keys or tokens) reads
 * each at most once a window, and cannot push the found values out. For reads of ids that cannot come into
 * being later (random secrets only the service hands out).
 */
export function readThroughWithMisses<A extends unknown[], T>(
  read: (...args: A) => Promise<T | undefined>,
  keyOf: (...args: A) => string,
  policy: Pick<CachePolicy<T | undefined, A>, 'ttlMillis'> & Partial<Pick<CachePolicy<T | undefined, A>, 'maxEntries'>>,
): (...args: A) => Promise<T | undefined> {
  const misses = readThrough(read, keyOf, { ...policy, keeps: (value) => value === undefined });
  return readThrough(misses, keyOf, { ...policy, keeps: (value) => value !== undefined });
}

/** `read` remembered for the life of the returned function (one unit of work, e.g. one batch), misses too. */
export const memoized = <A extends unknown[], T>(read: (...args: A) => Promise<T>, keyOf: (...args: A) => string): ((...args: A) => Promise<T>) =>
  readThrough(read, keyOf, { ttlMillis: Number.POSITIVE_INFINITY, keeps: () => true });
