import { RateLimitError } from '#shared/core/errors.ts';
import type { AuthFailureGuard } from '#shared/platform/types.ts';
import type { RateLimiter } from './rate-limit.ts';

/** The rate bucket of one source address's failed authentications (an address is at most 45 characters). */
const bucketOf = (source: string): string => `AUTH_FAILURES#${source.slice(0, 64) || 'unknown'}`;

/**
 * Failed authentications counted per source address, on the rate limiter's shared counter. A credential
 * nobody issued still costs a table read to refuse; once an address has failed `limit` times in a second,
 * the rest of its second is refused from memory before any read, so guessing keys (or session tokens, or
 * account link secrets) costs the table a bounded amount per address. Successful requests are not counted.
 * The limit fails closed: it only ever refuses requests that have already failed.
 */
export function authFailureGuard(limiter: RateLimiter, limit: number): AuthFailureGuard {
  const refuse = () =>
    new RateLimitError(
      `Too many requests with invalid credentials from this address: at most ${limit} a second. Check the API key (or token, or link), then retry after a short wait.`,
      'rate_limit',
      1,
    );
  return {
    admit(source, now) {
      if (limit > 0 && limiter.exhausted(bucketOf(source), now)) throw refuse();
    },
    async failed(source, now) {
      try {
        await limiter.enforce(bucketOf(source), limit, now, 'closed');
      } catch (error) {
        throw error instanceof RateLimitError ? refuse() : error;
      }
    },
  };
}
