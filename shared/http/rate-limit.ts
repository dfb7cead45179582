import { RateLimitError } from '#shared/errors.ts';
import { logger } from '#shared/logger.ts';

/** Storage port: a count per bucket and second, shared by every process (every Lambda instance). */
export interface RateCounter {
  /** Counts `count` requests in `bucket` for `second`; false (counting nothing) when that would pass `limit`. */
  take(bucket: string, second: number, limit: number, count: number): Promise<boolean>;
}

/** What a route's requests are counted against. */
export type RateLimitClass = 'requests' | 'meter_events' | 'meter_event_stream' | 'search';

export interface RateLimits {
  /** Per API key per second, by mode. */
  perKey: { live: number; test: number };
  /** Per platform per second, by mode. */
  meterEvents: { live: number; test: number };
  /** Per platform and mode per second. */
  meterEventStream: number;
  /**
   * Search requests per account (the one whose objects are searched) per second, by mode: a search page
   * may read up to 1,000 items of that account's partition, so its rate is what bounds the partition's reads.
   */
  search: { live: number; test: number };
}

/**
 * One counter item takes at most this many requests a second: a higher limit is spread over shards, each
 * holding its share, and a process counts in a random one. Near such a limit a request may be refused a
 * little early when its shard is full and another is not.
 */
const maxPerShard = 500;

/** Most buckets one process keeps an allowance for; more and it starts afresh (each costs a write again). */
const maxTrackedBuckets = 10_000;

interface Allowance {
  second: number;
  /** Requests this process already counted in the table for this second and has not used yet. */
  left: number;
  /** Requests this process saw in this second, and in the one before. */
  seen: number;
  seenBefore: number;
}

/**
 * Enforces per-second limits on a counter in the table that every process shares: 429 `rate_limit` with
 * `Retry-After` once a second's count is used up. Each write counts ahead for as many requests as this
 * process saw in a quarter of the second before (at most a quarter of the limit), so a busy key costs a
 * few writes a second and a quiet one exactly one per request; never more than one per request, and the
 * total counted never passes the limit (a process may leave some of its allowance unused: the limit then
 * bites a little early, never late). A counter that cannot be reached lets the request through: the limit
 * protects the service, and failing closed would turn a counter outage into an API outage.
 */
export function rateLimiter(counter: RateCounter) {
  const allowances = new Map<string, Allowance>();

  function allowanceOf(bucket: string, second: number): Allowance {
    const current = allowances.get(bucket);
    if (current?.second === second) return current;
    if (allowances.size >= maxTrackedBuckets) allowances.clear();
    const fresh = { second, left: 0, seen: 0, seenBefore: current?.second === second - 1 ? current.seen : 0 };
    allowances.set(bucket, fresh);
    return fresh;
  }

  return async function enforce(bucket: string, limit: number, now: number): Promise<void> {
    if (limit <= 0) return;
    const second = Math.floor(now / 1000);
    const allowance = allowanceOf(bucket, second);
    allowance.seen++;
    if (allowance.left > 0) {
      allowance.left--;
      return;
    }
    const shards = Math.ceil(limit / maxPerShard);
    const shardLimit = Math.ceil(limit / shards);
    const shard = `${bucket}#${shards === 1 ? 0 : Math.floor(Math.random() * shards)}`;
    const ahead = Math.max(1, Math.min(Math.floor(allowance.seenBefore / 4), Math.floor(shardLimit / 4)));
    let allowed: boolean;
    try {
      allowed = await counter.take(shard, second, shardLimit, ahead);
      // Near the limit a whole allowance may not fit where one request still does.
      if (!allowed && ahead > 1) allowed = await counter.take(shard, second, shardLimit, 1);
      else if (allowed) allowance.left += ahead - 1;
    } catch (error) {
      logger.warn('Rate limit counter unavailable; request let through', { bucket, error: error as Error });
      return;
    }
    if (!allowed) {
      throw new RateLimitError(
        `Request rate limit exceeded: at most ${limit} requests per second here. Retry after a short wait, ideally with exponential backoff.`,
        'rate_limit',
        1,
      );
    }
  };
}

export type RateLimiter = ReturnType<typeof rateLimiter>;
