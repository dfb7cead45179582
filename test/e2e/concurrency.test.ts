import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, sdk, type ApiAnswer, type ApiCall } from '../support/stack.ts';
import { eventually, quiesce } from '../support/wait.ts';

/** Many requests at once that must add up to exactly one effect, or to every effect. */
const all = <T>(count: number, run: (index: number) => Promise<T>) => Promise.all(Array.from({ length: count }, (_, index) => run(index)));

/** A client that retries what the API says may be retried (409 conflicts, 429 limits), as the SDK would. */
async function persistently(method: string, path: string, options: ApiCall): Promise<ApiAnswer> {
  for (let attempt = 0; ; attempt++) {
    const answer = await api(method, path, options);
    if (![409, 429].includes(answer.status) || attempt === 50) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
  }
}

describe('concurrency invariants', () => {
  let platform: CreatedPlatform;
  beforeAll(async () => {
    platform = await newPlatform();
  });

  it('answers 50 parallel requests with one Idempotency-Key identically, with one object made', async () => {
    const name = `idem-${Date.now()}`;
    const answers = await all(50, () => api('POST', '/v1/customers', { key: platform.secret_key, form: `name=${name}`, headers: { 'idempotency-key': name } }));

    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    const listed = await sdk(platform.secret_key).customers.list({ limit: 100 }).autoPagingToArray({ limit: 1_000 });
    expect(listed.filter((customer) => customer.name === name)).toHaveLength(1);
  });

  it('accepts one of 50 parallel meter events with one identifier, and counts it once', async () => {
    const client = sdk(platform.secret_key);
    const customer = await client.customers.create({ name: 'racing usage' });
    const meter = await client.billing.meters.create({ display_name: 'Racing', event_name: 'racing_calls', default_aggregation: { formula: 'sum' } });
    const answers = await all(50, () =>
      api('POST', '/v2/billing/meter_events', {
        key: platform.secret_key,
        json: { event_name: 'racing_calls', identifier: 'the-one', payload: { service_customer_id: customer.id, value: '7' } },
      }),
    );

    const accepted = answers.filter((answer) => answer.status === 200);
    expect(accepted).toHaveLength(1);
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) {
      expect([400, 409]).toContain(answer.status);
      expect(['duplicate_meter_event', 'too_many_concurrent_requests']).toContain(answer.body.error.code);
    }
    const now = Math.floor(Date.now() / 1000);
    const range = { customer: customer.id, start_time: now - (now % 60) - 600, end_time: now - (now % 60) + 600 };
    const total = await eventually(async () => (await client.billing.meters.listEventSummaries(meter.id, range)).data[0]?.aggregated_value);
    expect(total).toBe(7);
    // Nothing more is counted later (a duplicate counted late would show here).
    await quiesce({ queues: ['meter-events'] });
    expect((await client.billing.meters.listEventSummaries(meter.id, range)).data[0]?.aggregated_value).toBe(7);
  });

  it('loses none of 30 parallel updates of one account', async () => {
    const account = await sdk(platform.secret_key).v2.core.accounts.create({ display_name: 'busy' });
    const answers = await all(30, (i) =>
      persistently('POST', `/v2/core/accounts/${account.id}`, { key: platform.secret_key, json: { metadata: { [`k${i}`]: String(i) } } }),
    );

    expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(200));
    const final = await sdk(platform.secret_key).v2.core.accounts.retrieve(account.id);
    expect(Object.keys(final.metadata ?? {}).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}`).sort());
  });

  it('lets one of 20 parallel uses of a token win; the others are told it was used', async () => {
    const token = await sdk(platform.publishable_key).tokens.create({
      account: { business_type: 'company', company: { name: 'Once Ltd' }, tos_shown_and_accepted: true },
    });
    const answers = await all(20, () => api('POST', '/v2/core/accounts', { key: platform.secret_key, json: { account_token: token.id } }));

    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(19);
    for (const answer of refused) expect(answer.body.error).toMatchObject({ code: 'token_already_used' });
  });
});
