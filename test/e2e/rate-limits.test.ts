import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoRateCounter } from '#shared/data/rate-counter.ts';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, sdk, stackTable, type ApiAnswer } from '../support/stack.ts';

/**
 * The test stack limits live mode to 20 requests per key and 20 meter events per platform each second
 * (test/support/global-setup.ts); the defaults are 100 and 1,000 (docs/security.md, "Rate limits").
 */
const limit = 20;

/** An SDK client that counts the HTTP requests it sends, retries included (the SDK emits `request` for each). */
function observedSdk(key: string) {
  const sent = { requests: 0 };
  const client = sdk(key, { maxNetworkRetries: 8 });
  client.on('request', () => sent.requests++);
  return { client, sent };
}

const burst = (count: number, call: (index: number) => Promise<ApiAnswer>) => Promise.all(Array.from({ length: count }, (_, index) => call(index)));

describe('rate limits', () => {
  let live: CreatedPlatform;
  beforeAll(async () => {
    live = await newPlatform({ livemode: true });
  });

  it('answers a burst over the per-key limit with 429 rate_limit, Retry-After and the retry hint, in v1 and v2 shapes', async () => {
    const answers = await burst(3 * limit, (index) => api('GET', index % 2 ? '/v1/customers' : '/v2/core/event_destinations', { key: live.secret_key }));
    const limited = answers.filter((answer) => answer.status === 429);
    const served = answers.filter((answer) => answer.status === 200);

    expect(limited.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(served.length + limited.length).toBe(answers.length);
    for (const answer of limited) {
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.headers.get('stripe-should-retry')).toBe('true');
      const isV1 = 'param' in answer.body.error;
      expect(answer.body.error).toMatchObject(
        isV1 ? { type: 'rate_limit_error', code: 'rate_limit', param: null } : { type: 'rate_limit', code: 'rate_limit' },
      );
    }
  });

  it('lets the official SDK ride out the limit by itself: every call succeeds, some after a 429', async () => {
    const { client, sent } = observedSdk(live.secret_key);
    const customers = await Promise.all(Array.from({ length: 3 * limit }, (_, i) => client.customers.create({ name: `burst ${i}` })));

    expect(customers).toHaveLength(3 * limit);
    expect(new Set(customers.map((customer) => customer.id)).size).toBe(3 * limit);
    // More requests than calls: the 429s were retried (the SDK retries them only on the should-retry hint).
    expect(sent.requests).toBeGreaterThan(3 * limit);
  });

  it('limits live meter events per platform, whichever key sends them, and the SDK retries them through', async () => {
    const { client: setup } = observedSdk(live.secret_key);
    const customer = await setup.customers.create({ name: 'metered' });
    await setup.billing.meters.create({ display_name: 'Calls', event_name: 'rate_limited_calls', default_aggregation: { formula: 'sum' } });
    const event = (index: number) => ({
      event_name: 'rate_limited_calls',
      identifier: `rl-${index}`,
      payload: { service_customer_id: customer.id, value: '1' },
    });

    const answers = await burst(3 * limit, (index) => api('POST', '/v2/billing/meter_events', { key: live.secret_key, json: event(index) }));
    expect(answers.filter((answer) => answer.status === 429).length).toBeGreaterThan(0);
    expect(answers.find((answer) => answer.status === 429)!.body.error).toMatchObject({ type: 'rate_limit', code: 'rate_limit' });

    const { client } = observedSdk(live.secret_key);
    const refused = answers.map((answer, index) => ({ answer, index })).filter(({ answer }) => answer.status === 429);
    const accepted = await Promise.all(refused.map(({ index }) => client.v2.billing.meterEvents.create(event(index))));
    expect(accepted.map((meterEvent) => meterEvent.identifier)).toEqual(refused.map(({ index }) => `rl-${index}`));
  });

  it('keeps one count for every process: two counters on the table share the limit', async () => {
    // Two handles with clients of their own, as two Lambda instances would have.
    const first = dynamoRateCounter(stackTable());
    const second = dynamoRateCounter(stackTable());
    const bucket = `TEST#shared-${Date.now()}`;
    const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).take(bucket, 1_000, 15, 1)));
    expect(taken.filter(Boolean)).toHaveLength(15);
  });

  it('limits each key on its own: a test-mode key is not slowed by a live key at its limit', async () => {
    const test = await newPlatform();
    const [liveAnswers, testAnswers] = await Promise.all([
      burst(2 * limit, () => api('GET', '/v1/customers', { key: live.secret_key })),
      burst(2 * limit, () => api('GET', '/v1/customers', { key: test.secret_key })),
    ]);
    expect(liveAnswers.some((answer) => answer.status === 429)).toBe(true);
    expect(testAnswers.every((answer) => answer.status === 200)).toBe(true);
  });
});
