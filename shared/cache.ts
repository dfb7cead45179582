import { config } from '#shared/config.ts';

/**
 * How stale each cached read may be: the one list of the service's staleness windows (README, *Caches*).
 * Each is applied by a `readThrough` in a `wiring.ts` (or the HTTP pipeline's wiring); nothing in a
 * domain port knows about caching.
 */
export const cacheWindows = {
  /** API key records: a revoked or rolled key is accepted this long by a process that read it (API_KEY_CACHE_SECONDS). */
  apiKeys: () => config().API_KEY_CACHE_SECONDS * 1000,
  /** A platform's accounts v2 feature flag (the gate on accounts, persons and account links). */
  accountsV2Gate: () => 60_000,
  /** A meter event session (its expiry is checked on every request, so only a deleted session lingers). */
  meterEventSessions: () => 60_000,
  /** That a customer exists (only found customers are kept): events for a customer deleted since still count this long. */
  foundCustomers: () => 10_000,
  /** Per-account secrets never change once written. */
  accountSecrets: () => Number.POSITIVE_INFINITY,
};

export interface CachePolicy<T> {
  /** How long a value read is trusted (ms); 0 reads every time. */
  ttlMillis: number;
  /** Most values kept; the least recently used goes first. */
  maxEntries: number;
  /** Which values are kept (default: all but `undefined`, so a missing item is read again). */
  keeps?: (value: T) => boolean;
}

const defaultMaxEntries = 10_000;

/**
 * The one cache mechanism: `read` wrapped so that a value read for a key is reused for `ttlMillis`, in a
 * bounded, least-recently-used map per wrapper. Concurrent reads of one key share one call; a failed read
 * is not kept.
 */
export function readThrough<A extends unknown[], T>(
  read: (...args: A) => Promise<T>,
  keyOf: (...args: A) => string,
  { ttlMillis, maxEntries = defaultMaxEntries, keeps = (value) => value !== undefined }: Partial<CachePolicy<T>> & Pick<CachePolicy<T>, 'ttlMillis'>,
  clock: () => number = Date.now,
): (...args: A) => Promise<T> {
  const entries = new Map<string, { value: Promise<T>; until: number }>();
  return (...args) => {
    if (ttlMillis <= 0) return read(...args);
    const key = keyOf(...args);
    const now = clock();
    const found = entries.get(key);
    entries.delete(key);
    if (found && found.until > now) {
      entries.set(key, found);
      return found.value;
    }
    const entry = { value: read(...args), until: now + ttlMillis };
    entries.set(key, entry);
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    const drop = () => {
      if (entries.get(key) === entry) entries.delete(key);
    };
    entry.value.then((value) => {
      if (!keeps(value)) drop();
    }, drop);
    return entry.value;
  };
}
