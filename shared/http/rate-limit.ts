import { RateLimitError } from '#shared/errors.ts';
import { logger } from '#shared/logger.ts';

/** Storage port: a count per bucket and second, shared by every process (every Lambda instance). */
export interface RateCounter {
  /** Counts one request in `bucket` for the second of `now`; false when `limit` were already counted. */
  take(bucket: string, second: number, limit: number): Promise<boolean>;
}

/** What a route's requests are counted against. */
export type RateLimitClass = 'requests' | 'meter_events' | 'meter_event_stream';

export interface RateLimits {
  /** Per API key per second, by mode. */
  perKey: { live: number; test: number };
  /** Per platform per second, by mode. */
  meterEvents: { live: number; test: number };
  /** Per platform and mode per second. */
  meterEventStream: number;
}

/**
 * One counter item takes at most this many writes a second, half of what one DynamoDB partition accepts:
 * a higher limit is spread over shards, each holding its share, and a request counts in a random one.
 * Near such a limit a request may be refused a little early when its shard is full and another is not.
 */
const maxPerShard = 500;

/**
 * Enforces a limit with one conditional write: 429 `rate_limit` with `Retry-After` when the second's
 * count is used up. A counter that cannot be reached lets the request through: the limit protects the
 * service, and failing closed would turn a counter outage into an API outage.
 */
export async function enforceRateLimit(counter: RateCounter, bucket: string, limit: number, now: number): Promise<void> {
  if (limit <= 0) return;
  const shards = Math.ceil(limit / maxPerShard);
  const shard = shards === 1 ? 0 : Math.floor(Math.random() * shards);
  let allowed: boolean;
  try {
    allowed = await counter.take(`${bucket}#${shard}`, Math.floor(now / 1000), Math.ceil(limit / shards));
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
}
