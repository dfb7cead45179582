import { RateLimitError } from '#shared/errors.ts';
import { randomBase62 } from '#shared/ids.ts';

/** Storage port for the per-account concurrency leases. */
export interface UpdateSlots {
  /** Takes one of `limit` slots; undefined when all are held. */
  acquire(accountId: string, owner: string, limit: number, now?: number): Promise<number | undefined>;
  release(accountId: string, slot: number, owner: string): Promise<void>;
}

/**
 * Runs `work` while holding one of the account's update slots: at most `limit` requests change one account
 * at a time, the next gets 429 `account_rate_limit_exceeded`. Lost updates are prevented separately, by
 * the versioned conditional writes; this only bounds contention.
 */
export function accountUpdateLimiter(slots: UpdateSlots, limit: number) {
  return async function limited<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const owner = randomBase62(16);
    const slot = await slots.acquire(accountId, owner, limit);
    if (slot === undefined) {
      throw new RateLimitError(
        `Account ${accountId} is being changed by too many requests at once (its limit is ${limit}); retry after the others finish.`,
        'account_rate_limit_exceeded',
      );
    }
    try {
      return await work();
    } finally {
      await slots.release(accountId, slot, owner);
    }
  };
}

export type AccountUpdateLimiter = ReturnType<typeof accountUpdateLimiter>;
