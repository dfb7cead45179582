import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { newPlatform, sdk } from '../support/stack.ts';

/**
 * The official SDK's own transport, asking the local stack to say what each request cost
 * (`x-local-aws-calls: measure`, answered in the response header of the same name). The SDK is unchanged:
 * it keys every POST with an `Idempotency-Key` as it always does.
 */
function measuringHttpClient(): Stripe.HttpClient {
  const inner = Stripe.createNodeHttpClient();
  const client = Object.create(inner) as Stripe.HttpClient;
  client.makeRequest = (host, port, path, method, headers, data, protocol, timeout) =>
    inner.makeRequest(host, port, path, method, { ...headers, 'x-local-aws-calls': 'measure' }, data, protocol, timeout);
  return client;
}

const writeUnitsOf = (response: { headers: Record<string, string> }) => {
  const header = response.headers['x-local-aws-calls'];
  const units = /write=([\d.]+)/.exec(header ?? '')?.[1];
  if (units === undefined) throw new Error(`no x-local-aws-calls header: ${header}`);
  return Number(units);
};

/**
 * What a meter event costs in DynamoDB write units as users send it: through the official SDK over HTTP,
 * each POST keyed with an `Idempotency-Key`. The event's 3 (its minute's lease taken, its identifier
 * claimed with the key's hash, the lease released counting it) and no idempotency record; the rate counter
 * is written ahead for as many requests as the key sent in a quarter of the second before, so a busy key
 * writes it on few requests (docs/capacity.md, *Per meter event*).
 */
describe('a meter event sent through the official SDK', () => {
  let client: Stripe;
  let customer: string;

  beforeAll(async () => {
    const platform = await newPlatform();
    const setup = sdk(platform.secret_key);
    await setup.billing.meters.create({ display_name: 'sdk cost', event_name: 'sdk_cost_calls', default_aggregation: { formula: 'sum' } });
    customer = (await setup.customers.create({ name: 'sdk cost' })).id;
    client = sdk(platform.secret_key, { httpClient: measuringHttpClient() });
  });

  it('costs the event’s 3 write units on either wire, with the SDK’s Idempotency-Key kept in the event, plus the rate counter’s 1 on some', async () => {
    const payload = { service_customer_id: customer, value: '1' };
    // Given a key that has been sending events one after another (the counter counts ahead from its last second)
    for (let i = 0; i < 40; i++) await client.billing.meterEvents.create({ event_name: 'sdk_cost_calls', payload });

    // When it goes on sending, on the v1 and the v2 endpoint in turn
    const units: number[] = [];
    for (let i = 0; i < 60; i++) {
      const sent =
        i % 2 === 0
          ? await client.billing.meterEvents.create({ event_name: 'sdk_cost_calls', payload })
          : await client.v2.billing.meterEvents.create({ event_name: 'sdk_cost_calls', payload });
      expect(sent.lastResponse.headers['idempotency-key']).toMatch(/./);
      units.push(writeUnitsOf(sent.lastResponse));
    }

    // Then each costs the event's 3 write units, or 4 when it also wrote the rate counter, which some do not
    // (how many depends on the rate each function sees: `npm run bench:capacity` prints the spread)
    expect(units.filter((each) => each !== 3 && each !== 4)).toEqual([]);
    expect(units).toContain(3);
  });

  it('answers the SDK’s retry of a request that got no answer with the first event, counted once, at the same 3 write units', async () => {
    const params = { event_name: 'sdk_cost_calls', payload: { service_customer_id: customer, value: '5' } };
    const first = await client.billing.meterEvents.create(params, { idempotencyKey: `sdk-cost-retry-${customer}` });
    const retry = await client.billing.meterEvents.create(params, { idempotencyKey: `sdk-cost-retry-${customer}` });

    expect(retry.identifier).toBe(first.identifier);
    expect(retry.timestamp).toBe(first.timestamp);
    expect(retry.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(retry.lastResponse.headers['original-request']).toBe(first.lastResponse.requestId);
    // The retry takes the lease, finds the identifier held by its first try (a refused put), and releases it
    expect(writeUnitsOf(retry.lastResponse)).toBeLessThanOrEqual(4);
  });
});
