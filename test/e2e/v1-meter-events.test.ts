import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { issueApiKeys } from '#shared/platform/platform-service.ts';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { rateWindow } from '#shared/data/keys.ts';
import { api, newPlatform, platformStore, sdk, stackTable } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

const minute = 60;
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** Summary bounds around now (seconds, minute-aligned). */
const range = () => {
  const now = nowSeconds();
  return { start_time: now - (now % minute) - 10 * minute, end_time: now - (now % minute) + 10 * minute };
};
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/**
 * POST /v1/billing/meter_events and /v1/billing/meter_event_adjustments: the v2 endpoints' checks, counting,
 * identifiers and cancellations, answered in the v1 shapes (Unix seconds, no adjustment id) and v1 error bodies.
 */
describe('v1 meter events through the official SDK', () => {
  let platform: CreatedPlatform;
  let key: string;
  let client: Stripe;
  let customer: Stripe.Customer;
  let meter: Stripe.Billing.Meter;
  const total = async (customerId: string) => {
    const summaries = await client.billing.meters.listEventSummaries(meter.id, { customer: customerId, ...range() });
    return summaries.data[0]?.aggregated_value;
  };
  const totalBecomes = (customerId: string, wanted: number) => eventually(async () => ((await total(customerId)) === wanted ? wanted : undefined));
  const sdkError = (promise: Promise<unknown>) => promise.then(() => undefined).catch((error: unknown) => error);

  beforeAll(async () => {
    platform = await newPlatform();
    key = platform.secret_key;
    client = sdk(key);
    customer = await client.customers.create({ name: 'v1 usage customer' });
    meter = await client.billing.meters.create({ display_name: 'v1 calls', event_name: 'v1_calls', default_aggregation: { formula: 'sum' } });
  });

  it('creates an event in the v1 shape and counts it in the meter’s event summaries', async () => {
    // Given a timestamp in Unix seconds, as v1 takes it
    const timestamp = nowSeconds() - 30;

    // When the SDK sends the event
    const event = await client.billing.meterEvents.create({
      event_name: 'v1_calls',
      payload: { service_customer_id: customer.id, value: '25' },
      identifier: 'v1-first',
      timestamp,
    });

    // Then it answers the v1 object, its times in seconds, and the usage counts it
    expect(event).toEqual({
      object: 'billing.meter_event',
      created: expect.any(Number),
      event_name: 'v1_calls',
      identifier: 'v1-first',
      livemode: false,
      payload: { service_customer_id: customer.id, value: '25' },
      timestamp,
    });
    expect(Number.isInteger(event.created) && Math.abs(event.created - nowSeconds()) < 60).toBe(true);
    expect(await totalBecomes(customer.id, 25)).toBe(25);
  });

  it('generates an identifier and takes the current time when none are given', async () => {
    const buyer = await client.customers.create({ name: 'v1 defaults' });
    const before = nowSeconds();

    const event = await client.billing.meterEvents.create({
      event_name: 'v1_calls',
      payload: { service_customer_id: buyer.id, value: 4 as unknown as string },
    });

    expect(event.identifier).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.payload.value).toBe('4');
    expect(event.timestamp).toBeGreaterThanOrEqual(before);
    expect(event.timestamp).toBeLessThanOrEqual(nowSeconds());
    expect(await totalBecomes(buyer.id, 4)).toBe(4);
  });

  it('shares identifiers with v2: an identifier taken on either endpoint is a duplicate on the other, and only the first counts', async () => {
    // Given one event sent on v1 and another on v2
    const buyer = await client.customers.create({ name: 'v1 and v2' });
    await client.billing.meterEvents.create({ event_name: 'v1_calls', payload: { service_customer_id: buyer.id, value: '3' }, identifier: 'shared-v1' });
    await client.v2.billing.meterEvents.create({ event_name: 'v1_calls', payload: { service_customer_id: buyer.id, value: '5' }, identifier: 'shared-v2' });

    // When each identifier is sent again on the other endpoint
    const onV2 = await api('POST', '/v2/billing/meter_events', {
      key,
      json: { event_name: 'v1_calls', payload: { service_customer_id: buyer.id, value: '100' }, identifier: 'shared-v1' },
    });
    const onV1 = await sdkError(
      client.billing.meterEvents.create({ event_name: 'v1_calls', payload: { service_customer_id: buyer.id, value: '100' }, identifier: 'shared-v2' }),
    );

    // Then both are refused as duplicates, in each wire's error body, and the usage holds the first two alone
    expect(onV2.status).toBe(400);
    expect(onV2.body.error).toMatchObject({ type: 'invalid_request_error', code: 'duplicate_meter_event' });
    expect(onV1).toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'duplicate_meter_event',
      param: 'identifier',
      message: expect.stringMatching(/^An event already exists with identifier shared-v2\./),
    });
    expect(await totalBecomes(buyer.id, 8)).toBe(8);
  });

  it('cancels an event with a v1 adjustment, whichever endpoint took the event, and refuses a second cancellation', async () => {
    // Given a v1 event and a v2 event of one customer, both counted
    const buyer = await client.customers.create({ name: 'v1 cancels' });
    await client.billing.meterEvents.create({ event_name: 'v1_calls', payload: { service_customer_id: buyer.id, value: '10' }, identifier: 'v1-keep' });
    await client.billing.meterEvents.create({ event_name: 'v1_calls', payload: { service_customer_id: buyer.id, value: '7' }, identifier: 'v1-cancel' });
    await client.v2.billing.meterEvents.create({ event_name: 'v1_calls', payload: { service_customer_id: buyer.id, value: '2' }, identifier: 'v2-cancel' });
    await totalBecomes(buyer.id, 19);

    // When both are cancelled on v1
    const adjustment = await client.billing.meterEventAdjustments.create({ event_name: 'v1_calls', type: 'cancel', cancel: { identifier: 'v1-cancel' } });
    await client.billing.meterEventAdjustments.create({ event_name: 'v1_calls', type: 'cancel', cancel: { identifier: 'v2-cancel' } });

    // Then the v1 adjustment answers pending, without an id, and the usage loses both events
    expect(adjustment).toEqual({
      object: 'billing.meter_event_adjustment',
      cancel: { identifier: 'v1-cancel' },
      event_name: 'v1_calls',
      livemode: false,
      status: 'pending',
      type: 'cancel',
    });
    expect(await totalBecomes(buyer.id, 10)).toBe(10);
    // And a cancelled event cannot be cancelled again, on either endpoint
    const again = await sdkError(client.billing.meterEventAdjustments.create({ event_name: 'v1_calls', type: 'cancel', cancel: { identifier: 'v1-cancel' } }));
    expect(again).toMatchObject({ statusCode: 400, code: 'meter_event_already_cancelled', param: 'cancel[identifier]' });
    const onV2 = await client.v2.billing.meterEventAdjustments
      .create({ event_name: 'v1_calls', type: 'cancel', cancel: { identifier: 'v1-cancel' } })
      .catch((error) => error);
    expect(onV2).toMatchObject({ code: 'meter_event_already_cancelled' });
  });

  it('answers each validation error in the v1 error body, naming the parameter in bracket notation', async () => {
    // Given an inactive meter beside the active one
    const inactive = await client.billing.meters.create({ display_name: 'gone', event_name: 'v1_archived_calls', default_aggregation: { formula: 'sum' } });
    await client.billing.meters.deactivate(inactive.id);
    const payload = { service_customer_id: customer.id, value: '3' };
    const now = nowSeconds();
    const cases: Array<[Stripe.Billing.MeterEventCreateParams, string, string]> = [
      [{ event_name: 'nothing_here', payload }, 'no_meter', 'event_name'],
      [{ event_name: 'v1_archived_calls', payload }, 'archived_meter', 'event_name'],
      [{ event_name: 'v1_calls', payload: { value: '3' } }, 'payload_no_customer_defined', 'payload[service_customer_id]'],
      [{ event_name: 'v1_calls', payload: { service_customer_id: customer.id } }, 'payload_no_value_defined', 'payload[value]'],
      [{ event_name: 'v1_calls', payload: { service_customer_id: customer.id, value: '-4' } }, 'payload_invalid_value', 'payload[value]'],
      [{ event_name: 'v1_calls', payload: { service_customer_id: customer.id, value: '2.5' } }, 'payload_invalid_value', 'payload[value]'],
      [{ event_name: 'v1_calls', payload: { service_customer_id: customer.id, value: '0' } }, 'payload_invalid_value', 'payload[value]'],
      [{ event_name: 'v1_calls', payload, timestamp: now - 36 * 86_400 }, 'timestamp_too_far_in_past', 'timestamp'],
      [{ event_name: 'v1_calls', payload, timestamp: now + 6 * 60 }, 'timestamp_in_future', 'timestamp'],
      [{ event_name: 'v1_calls', payload, identifier: 'x'.repeat(101) }, 'parameter_invalid', 'identifier'],
      [{ event_name: 'v1_calls', payload, expand: ['payload'] }, 'parameter_invalid', 'expand[0]'],
      [{ event_name: 'v1_calls', payload, color: 'red' } as never, 'parameter_unknown', 'color'],
    ];

    // When each is sent through the SDK
    for (const [params, code, param] of cases) {
      const error = await sdkError(client.billing.meterEvents.create(params));

      // Then it is the SDK's invalid request error with the code and parameter
      expect({ params, error }).toMatchObject({
        params,
        error: { type: 'StripeInvalidRequestError', rawType: 'invalid_request_error', statusCode: 400, code, param },
      });
    }

    // And the adjustment's own errors
    const adjust = (params: Stripe.Billing.MeterEventAdjustmentCreateParams) => sdkError(client.billing.meterEventAdjustments.create(params));
    expect(await adjust({ event_name: 'v1_calls', type: 'cancel' })).toMatchObject({ statusCode: 400, code: 'invalid_cancel_configuration', param: 'cancel' });
    expect(await adjust({ event_name: 'v1_calls', type: 'cancel', cancel: { identifier: 'never-sent' } })).toMatchObject({
      statusCode: 400,
      code: 'meter_event_not_found',
      param: 'cancel[identifier]',
    });
    expect(await adjust({ event_name: 'nothing_here', type: 'cancel', cancel: { identifier: 'v1-first' } })).toMatchObject({ code: 'no_meter' });
    expect(await adjust({ event_name: 'v1_calls', type: 'uncancel' as 'cancel', cancel: { identifier: 'v1-first' } })).toMatchObject({
      code: 'parameter_invalid',
      param: 'type',
    });
  });

  it('replays an idempotent retry without counting it again, and refuses the key with other parameters', async () => {
    // Given an event sent with an idempotency key
    const buyer = await client.customers.create({ name: 'v1 idempotent' });
    const body = form({ event_name: 'v1_calls', 'payload[service_customer_id]': buyer.id, 'payload[value]': '6', identifier: 'v1-idem' });
    const headers = { 'idempotency-key': `v1-meter-${buyer.id}` };
    const first = await api('POST', '/v1/billing/meter_events', { key, form: body, headers });

    // When the same request is sent again, and then the key with other parameters for that event
    const retry = await api('POST', '/v1/billing/meter_events', { key, form: body, headers });
    const other = await api('POST', '/v1/billing/meter_events', {
      key,
      headers,
      form: form({ event_name: 'v1_calls', 'payload[service_customer_id]': buyer.id, 'payload[value]': '7', identifier: 'v1-idem' }),
    });

    // Then the retry replays the first answer, the other is refused, and the event counted once
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('original-request')).toBe(first.headers.get('request-id'));
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ type: 'idempotency_error' });
    expect(await totalBecomes(buyer.id, 6)).toBe(6);

    // And the SDK's own retry (the same key sent again) gets the stored answer
    const key1 = `v1-meter-sdk-${buyer.id}`;
    const params = { event_name: 'v1_calls', payload: { service_customer_id: buyer.id, value: '1' }, identifier: 'v1-idem-sdk' };
    const sent = await client.billing.meterEvents.create(params, { idempotencyKey: key1 });
    const resent = await client.billing.meterEvents.create(params, { idempotencyKey: key1 });
    expect(resent).toEqual(sent);
    expect(resent.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(await totalBecomes(buyer.id, 7)).toBe(7);
  });

  it('finds no meter by another platform’s event name, nor by the other mode’s', async () => {
    // Given another platform, and the owner's live-mode key
    const stranger = sdk((await newPlatform()).secret_key);
    const live = sdk((await issueApiKeys(platformStore(), platform.account, { livemode: true })).secret_key);
    const params = { event_name: 'v1_calls', payload: { service_customer_id: customer.id, value: '1' } };

    // When they send an event with the owner's test-mode meter's name
    // Then neither finds a meter
    expect(await sdkError(stranger.billing.meterEvents.create(params))).toMatchObject({ statusCode: 400, code: 'no_meter', param: 'event_name' });
    expect(await sdkError(live.billing.meterEvents.create(params))).toMatchObject({ statusCode: 400, code: 'no_meter', param: 'event_name' });
    expect(
      await sdkError(stranger.billing.meterEventAdjustments.create({ event_name: 'v1_calls', type: 'cancel', cancel: { identifier: 'v1-first' } })),
    ).toMatchObject({ code: 'no_meter' });
  });

  it('takes the raw form a curl user sends, and refuses nested payload values and non-integer timestamps', async () => {
    const buyer = await client.customers.create({ name: 'v1 raw' });
    const timestamp = nowSeconds() - 5;

    const created = await api('POST', '/v1/billing/meter_events', {
      key,
      form: `event_name=v1_calls&payload[service_customer_id]=${buyer.id}&payload[value]=25&identifier=raw-1&timestamp=${timestamp}`,
    });
    const nested = await api('POST', '/v1/billing/meter_events', {
      key,
      form: `event_name=v1_calls&payload[service_customer_id]=${buyer.id}&payload[value][amount]=25`,
    });
    const iso = await api('POST', '/v1/billing/meter_events', {
      key,
      form: form({ event_name: 'v1_calls', 'payload[service_customer_id]': buyer.id, 'payload[value]': '1', timestamp: new Date().toISOString() }),
    });
    const kept = await api('POST', '/v1/billing/meter_events', { key, form: `event_name=v1_calls&payload[service_customer_id]=${buyer.id}&payload[value]=3` });
    await totalBecomes(buyer.id, 28);
    const cancelled = await api('POST', '/v1/billing/meter_event_adjustments', { key, form: 'event_name=v1_calls&type=cancel&cancel[identifier]=raw-1' });

    expect(created.status).toBe(200);
    expect(kept.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'billing.meter_event',
      identifier: 'raw-1',
      timestamp,
      payload: { service_customer_id: buyer.id, value: '25' },
    });
    expect(nested.status).toBe(400);
    expect(nested.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'payload[value]' });
    expect(iso.status).toBe(400);
    expect(iso.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'timestamp' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({
      object: 'billing.meter_event_adjustment',
      cancel: { identifier: 'raw-1' },
      event_name: 'v1_calls',
      livemode: false,
      status: 'pending',
      type: 'cancel',
    });
    expect(await totalBecomes(buyer.id, 3)).toBe(3);
  });

  it('reports a v1 event for an unknown customer in the meter’s error report, as it reports a v2 one', async () => {
    // Given an event naming no existing customer, sent on each endpoint
    const [v1Event] = await Promise.all([
      client.billing.meterEvents.create({ event_name: 'v1_calls', payload: { service_customer_id: 'cus_nobody_v1', value: '5' }, identifier: 'v1-ghost' }),
      client.v2.billing.meterEvents.create({ event_name: 'v1_calls', payload: { service_customer_id: 'cus_nobody_v2', value: '5' }, identifier: 'v2-ghost' }),
    ]);
    expect(v1Event.identifier).toBe('v1-ghost');

    // When the meter's error reports come out
    const samples = await eventually(async () => {
      const events = await client.v2.core.events.list({ object_id: meter.id } as never);
      const found: Array<{ code: string; identifier: string }> = [];
      for (const event of events.data.filter((candidate) => candidate.type === 'v1.billing.meter.error_report_triggered')) {
        const full = (await client.v2.core.events.retrieve(event.id)) as unknown as { data: any };
        for (const type of full.data.reason.error_types) {
          for (const sample of type.sample_errors) found.push({ code: type.code, identifier: sample.request.identifier });
        }
      }
      const ours = found.filter((sample) => sample.identifier.endsWith('-ghost'));
      return ours.length === 2 ? ours : undefined;
    }, 20_000);

    // Then both are there, with the same code
    expect(samples).toEqual(
      expect.arrayContaining([
        { code: 'meter_event_customer_not_found', identifier: 'v1-ghost' },
        { code: 'meter_event_customer_not_found', identifier: 'v2-ghost' },
      ]),
    );
  });

  it('counts v1 meter events against the platform’s meter-events limit, shared with v2, and answers 429 in the v1 body', async () => {
    // Given a live platform (the test stack allows 20 live meter events a second per platform) with a meter
    const live = await newPlatform({ livemode: true });
    const setup = sdk(live.secret_key, { maxNetworkRetries: 8 });
    const buyer = await setup.customers.create({ name: 'v1 limited' });
    await setup.billing.meters.create({ display_name: 'Limited', event_name: 'v1_limited_calls', default_aggregation: { formula: 'sum' } });
    const fields = (index: number) => ({
      event_name: 'v1_limited_calls',
      'payload[service_customer_id]': buyer.id,
      'payload[value]': '1',
      identifier: `v1-rl-${index}`,
    });

    // When one event is sent on each endpoint from a second key of the platform
    const second = (await issueApiKeys(platformStore(), live.account, { livemode: true })).secret_key;
    const firstSecond = Math.floor(Date.now() / 1000);
    expect((await api('POST', '/v1/billing/meter_events', { key: second, form: form(fields(-1)) })).status).toBe(200);
    expect(
      (
        await api('POST', '/v2/billing/meter_events', {
          key: second,
          json: { event_name: 'v1_limited_calls', payload: { service_customer_id: buyer.id, value: '1' } },
        })
      ).status,
    ).toBe(200);

    const lastSecond = Math.floor(Date.now() / 1000);

    // Then both were counted in the platform's meter-events windows (one small write each for a quiet bucket):
    // read by key, one window per second the two requests took (one shard below 500 a second), where a scan of
    // the whole table took seconds late in a run
    const table = stackTable();
    const seconds = Array.from({ length: lastSecond - firstSecond + 1 }, (_, index) => firstSecond + index);
    const windows = await Promise.all(
      seconds.map((each) => table.getConsistent({ PK: rateWindow.pk(`METER_EVENTS#${live.account}#live#0`, each), SK: rateWindow.sk() })),
    );
    expect(windows.reduce((sum, item) => sum + Number(item?.count ?? 0), 0)).toBe(2);

    // And a burst over the limit is refused with 429 in the v1 body, which the SDK retries through
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, index) => api('POST', '/v1/billing/meter_events', { key: live.secret_key, form: form(fields(index)) })),
    );
    const refused = answers.map((answer, index) => ({ answer, index })).filter(({ answer }) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.answer.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit' });
    expect(refused[0]!.answer.headers.get('retry-after')).toBe('1');
    const retried = await Promise.all(
      refused.map(({ index }) =>
        setup.billing.meterEvents.create({
          event_name: 'v1_limited_calls',
          payload: { service_customer_id: buyer.id, value: '1' },
          identifier: `v1-rl-${index}`,
        }),
      ),
    );
    expect(retried.map((event) => event.identifier)).toEqual(refused.map(({ index }) => `v1-rl-${index}`));
  });
});
