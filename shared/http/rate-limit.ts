import { RateLimitError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { CounterThrottledError, type RateCounter } from '#shared/platform/ports.ts';

/**
 * What a limit does when its counter cannot be reached: `open` lets the request through (the limit is
 * fairness, and failing closed would turn a counter outage into an API outage), `closed` refuses it (the
 * limit is what bounds an expensive or hostile load). A throttled counter always counts as closed: it is
 * throttled because its bucket is flooded, and letting the flood through is what the limit is for.
 */
export type CounterFailure = 'open' | 'closed';

/** The metric each request the functions answer 429 counts into (infra/monitoring.ts alarms on its share). */
export const rateLimitedMetricName = 'RateLimitedRequests';

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
  /** Failed authentications per source address per second (see `authFailureGuard`). */
  authFailures: number;
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
  /** The shards the table refused this second: none is written again; once all are, requests are refused without a write. */
  fullShards: Set<number>;
  /** Every shard is full (or the counter throttled): the rest of the second is refused from memory. */
  full: boolean;
}

/**
 * Enforces per-second limits on a counter in the table that every process shares: 429 `rate_limit` with
 * `Retry-After` once a second's count is used up. Each write counts ahead for as many requests as this
 * process saw in a quarter of the second before (at most a quarter of the limit), so a busy key costs a
 * few writes a second and a quiet one exactly one per request; never more than one per request, and the
 * total counted never passes the limit (a process may leave some of its allowance unused: the limit then
 * bites a little early, never late). Refusals write nothing: once the table refuses a bucket's second, this
 * process refuses the rest of that second from memory, so a flood costs one refused write per process and
 * second, and cannot throttle the counter into letting requests through. A counter that cannot be reached
 * fails open or closed as the caller's limit says ({@link CounterFailure}).
 */
export function rateLimiter(counter: RateCounter): RateLimiter {
  const allowances = new Map<string, Allowance>();

  function allowanceOf(bucket: string, second: number): Allowance {
    const current = allowances.get(bucket);
    if (current?.second === second) return current;
    if (allowances.size >= maxTrackedBuckets) allowances.clear();
    const fresh = { second, left: 0, seen: 0, seenBefore: current?.second === second - 1 ? current.seen : 0, fullShards: new Set<number>(), full: false };
    allowances.set(bucket, fresh);
    return fresh;
  }

  const refuse = (limit: number) =>
    new RateLimitError(
      `Request rate limit exceeded: at most ${limit} requests per second here. Retry after a short wait, ideally with exponential backoff.`,
      'rate_limit',
      1,
    );

  async function enforce(bucket: string, limit: number, now: number, onCounterFailure: CounterFailure = 'open'): Promise<void> {
    if (limit <= 0) return;
    const second = Math.floor(now / 1000);
    const allowance = allowanceOf(bucket, second);
    allowance.seen++;
    if (allowance.full) throw refuse(limit);
    if (allowance.left > 0) {
      allowance.left--;
      return;
    }
    const shards = Math.ceil(limit / maxPerShard);
    const shardLimit = Math.ceil(limit / shards);
    const open = Array.from({ length: shards }, (_, index) => index).filter((index) => !allowance.fullShards.has(index));
    const shardIndex = open[Math.floor(Math.random() * open.length)]!;
    const shard = `${bucket}#${shardIndex}`;
    const ahead = Math.max(1, Math.min(Math.floor(allowance.seenBefore / 4), Math.floor(shardLimit / 4)));
    let allowed: boolean;
    try {
      allowed = await counter.take(shard, second, shardLimit, ahead);
      // Near the limit a whole allowance may not fit where one request still does.
      if (!allowed && ahead > 1) allowed = await counter.take(shard, second, shardLimit, 1);
      else if (allowed) allowance.left += ahead - 1;
    } catch (error) {
      const throttled = error instanceof CounterThrottledError;
      if (throttled || onCounterFailure === 'closed') {
        logger.warn('Rate limit counter unavailable; request refused', { bucket, throttled, error: error as Error });
        allowance.full = throttled;
        throw refuse(limit);
      }
      logger.warn('Rate limit counter unavailable; request let through', { bucket, error: error as Error });
      return;
    }
    if (!allowed) {
      // This shard is used up for the second; the others may still have room.
      allowance.fullShards.add(shardIndex);
      allowance.full = allowance.fullShards.size === shards;
      throw refuse(limit);
    }
  }

  return {
    enforce,
    exhausted: (bucket, now) => allowances.get(bucket)?.second === Math.floor(now / 1000) && allowances.get(bucket)?.full === true,
  };
}

/** Per-second limits on a shared counter (see {@link rateLimiter}). */
export interface RateLimiter {
  /** Counts one request against `bucket`'s `limit` per second; 429 `rate_limit` past it. */
  enforce(bucket: string, limit: number, now: number, onCounterFailure?: CounterFailure): Promise<void>;
  /** Whether this process already knows `bucket`'s current second to be used up: no table call. */
  exhausted(bucket: string, now: number): boolean;
}
