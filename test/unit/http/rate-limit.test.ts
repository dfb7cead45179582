import { describe, expect, it } from 'vitest';
import { RateLimitError } from '#shared/core/errors.ts';
import { accountUpdateLimiter, type UpdateSlots } from '#shared/accounts/update-limit.ts';
import { errorResponse } from '#shared/http/error-mapping.ts';
import { rateLimiter, type RateLimiter } from '#shared/http/rate-limit.ts';
import { CounterThrottledError } from '#shared/platform/ports.ts';
import { memoryRateCounter as memoryCounter } from '../../support/fakes.ts';

const admitted = async ({ enforce }: RateLimiter, bucket: string, limit: number, now: number, requests: number) => {
  let count = 0;
  for (let i = 0; i < requests; i++) {
    try {
      await enforce(bucket, limit, now);
      count++;
    } catch (error) {
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ code: 'rate_limit', retryAfterSeconds: 1 });
    }
  }
  return count;
};

describe('the rate limiter', () => {
  it('admits exactly the limit in a second, with one write per request while a key is quiet', async () => {
    const { counter, calls } = memoryCounter();
    const enforce = rateLimiter(counter);
    expect(await admitted(enforce, 'k', 100, 1_000, 150)).toBe(100);
    expect(calls.every((count) => count === 1)).toBe(true);
  });

  it('counts ahead for a busy key: a few writes a second, and still never past the limit', async () => {
    const { counter, calls } = memoryCounter();
    const enforce = rateLimiter(counter);
    await admitted(enforce, 'k', 1_000, 1_000, 400);
    calls.length = 0;
    expect(await admitted(enforce, 'k', 1_000, 2_000, 400)).toBe(400);
    expect(calls.length).toBeLessThan(20);
    expect(await admitted(enforce, 'k', 1_000, 2_500, 1_000)).toBe(600);
  });

  it('shares the limit between processes: together they never admit more than the limit', async () => {
    const { counter, counts } = memoryCounter();
    const processes = [rateLimiter(counter), rateLimiter(counter), rateLimiter(counter)];
    for (const enforce of processes) await admitted(enforce, 'k', 90, 1_000, 100);
    let total = 0;
    for (const enforce of processes) total += await admitted(enforce, 'k', 90, 2_000, 60);
    expect(total).toBeLessThanOrEqual(90);
    expect(total).toBeGreaterThanOrEqual(60);
    expect([...counts.values()].every((count) => count <= 90)).toBe(true);
  });

  it('writes nothing for a refusal: once a second is used up, the rest of it is refused from memory', async () => {
    // Given a limit of 10 a second, used up
    const { counter, calls } = memoryCounter();
    const limiter = rateLimiter(counter);
    expect(await admitted(limiter, 'k', 10, 1_000, 10)).toBe(10);
    // When a flood of 1,000 more requests comes in that second
    calls.length = 0;
    expect(await admitted(limiter, 'k', 10, 1_500, 1_000)).toBe(0);
    // Then one refused write told the process so, and the other 999 cost nothing
    expect(calls.length).toBe(1);
    expect(limiter.exhausted('k', 1_999)).toBe(true);
    // And the next second counts afresh
    expect(limiter.exhausted('k', 2_000)).toBe(false);
    expect(await admitted(limiter, 'k', 10, 2_000, 1)).toBe(1);
  });

  it('fails closed on a throttled counter, whatever the limit says, and refuses the rest of that second without a write', async () => {
    let calls = 0;
    const limiter = rateLimiter({
      take: async () => {
        calls++;
        throw new CounterThrottledError('throttled');
      },
    });
    await expect(limiter.enforce('k', 10, 1_000, 'open')).rejects.toMatchObject({ code: 'rate_limit', retryAfterSeconds: 1 });
    await expect(limiter.enforce('k', 10, 1_100, 'open')).rejects.toBeInstanceOf(RateLimitError);
    expect(calls).toBe(1);
  });

  it('lets an open limit through when the counter cannot be reached, refuses a closed one, and limits nothing at 0', async () => {
    const limiter = rateLimiter({ take: () => Promise.reject(new Error('connection reset')) });
    await expect(limiter.enforce('k', 10, 1_000)).resolves.toBeUndefined();
    await expect(limiter.enforce('k', 10, 1_000, 'open')).resolves.toBeUndefined();
    await expect(limiter.enforce('k', 10, 1_000, 'closed')).rejects.toBeInstanceOf(RateLimitError);
    // An unreachable counter is not a full one: the next request tries it again
    expect(limiter.exhausted('k', 1_000)).toBe(false);
    const { counter, calls } = memoryCounter();
    await rateLimiter(counter).enforce('k', 0, 1_000);
    expect(calls).toEqual([]);
  });
});

describe('the account update limiter', () => {
  it('refuses the request past the limit with the retry hint of the per-key limiter, and frees the slot after each request', async () => {
    // Given an account with one update slot, held by a request in flight
    const held = new Set<string>();
    const slots: UpdateSlots = {
      async acquire(_owner, accountId, _holder, limit) {
        if (held.size >= limit) return undefined;
        held.add(accountId);
        return 0;
      },
      async release(_owner, accountId) {
        held.delete(accountId);
      },
    };
    const limited = accountUpdateLimiter(slots, 1);
    const owner = { accountId: 'acct_owner', livemode: false };
    let finish: () => void = () => undefined;
    const first = limited(owner, 'acct_1', () => new Promise<void>((resolve) => (finish = resolve)));
    // When a second request comes in meanwhile, it is refused as the per-key limit refuses: retry after a second
    await expect(limited(owner, 'acct_1', async () => 'late')).rejects.toMatchObject({ code: 'account_rate_limit_exceeded', retryAfterSeconds: 1 });
    const refused = await limited(owner, 'acct_1', async () => 'late').catch((error: unknown) => errorResponse(error, 'v2', 'req_1'));
    expect(refused).toMatchObject({ status: 429, headers: { 'Retry-After': '1', 'Stripe-Should-Retry': 'true', 'Service-Should-Retry': 'true' } });
    // Then, once the first is done, the next gets through
    finish();
    await first;
    await expect(limited(owner, 'acct_1', async () => 'next')).resolves.toBe('next');
  });
});
