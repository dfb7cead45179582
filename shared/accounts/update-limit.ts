import { RateLimitError } from '#shared/core/errors.ts';
import { randomBase62 } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';

/** Storage port for the per-account concurrency leases, kept per owner (scope) and account. */
export interface UpdateSlots {
  /** Takes one of `limit` slots; undefined when all are held. */
  acquire(owner: Scope, accountId: string, holder: string, limit: number, now?: number): Promise<number | undefined>;
  release(owner: Scope, accountId: string, slot: number, holder: string): Promise<void>;
}

/**
 * Runs `work` while holding one of the account's update slots: at most `limit` requests change one account
 * at a time, the next gets 429 `account_rate_limit_exceeded`. Lost updates are prevented separately, by
 * the versioned conditional writes; this only bounds contention. Callers take a slot only once they have
 * found the account in `owner`'s scope, and slots are kept per owner: nobody else's requests (another
 * platform's, the other mode's) can use up an account's slots.
 */
export function accountUpdateLimiter(slots: UpdateSlots, limit: number) {
  return async function limited<T>(owner: Scope, accountId: string, work: () => Promise<T>): Promise<T> {
    const holder = randomBase62(16);
    const slot = await slots.acquire(owner, accountId, holder, limit);
    if (slot === undefined) {
      throw new RateLimitError(
        `Account ${accountId} is being changed by too many requests at once (its limit is ${limit}); retry after the others finish.`,
        'account_rate_limit_exceeded',
        // As the per-key limiter's 429: `Retry-After` and the should-retry headers, so SDKs retry by themselves.
        1,
      );
    }
    try {
      return await work();
    } finally {
      await slots.release(owner, accountId, slot, holder);
    }
  };
}

export type AccountUpdateLimiter = ReturnType<typeof accountUpdateLimiter>;
