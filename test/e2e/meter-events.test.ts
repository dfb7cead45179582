import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { createHash } from 'node:crypto';
import { meterEventSession } from '#shared/data/keys.ts';
import { api, newPlatform, sdk, stack, stackTable } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

const minute = 60;
/** The current minute and the next, as summary bounds (seconds). */
const range = () => {
  const now = Math.floor(Date.now() / 1000);
  return { start_time: now - (now % minute) - 10 * minute, end_time: now - (now % minute) + 10 * minute };
};

describe('meter events through the official SDK', () => {
  let key: string;
  let client: Stripe;
  let customer: Stripe.Customer;
  let meter: Stripe.Billing.Meter;
  const total = async (meterId: string, customerId: string) => {
    const summaries = await client.billing.meters.listEventSummaries(meterId, { customer: customerId, ...range() });
    return summaries.data[0]?.aggregated_value;
  };

  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    customer = await client.customers.create({ name: 'Usage customer' });
    meter = await client.billing.meters.create({ display_name: 'API calls', event_name: 'api_calls', default_aggregation: { formula: 'sum' } });
  });

  it('accepts an event, answers with it, and counts it once processed', async () => {
    const timestamp = new Date(Date.now() - 5_000).toISOString();
    const event = await client.v2.billing.meterEvents.create({
      event_name: 'api_calls',
      payload: { service_customer_id: customer.id, value: '25' },
      identifier: 'first-event',
      timestamp,
    });

    expect(event).toMatchObject({
      object: 'v2.billing.meter_event',
      event_name: 'api_calls',
      identifier: 'first-event',
      livemode: false,
      payload: { service_customer_id: customer.id, value: '25' },
    });
    expect(Date.parse(event.timestamp)).toBe(Date.parse(timestamp));
    expect(await eventually(async () => ((await total(meter.id, customer.id)) === 25 ? 25 : undefined))).toBe(25);
  });

  it('generates an identifier when none is given', async () => {
    const event = await client.v2.billing.meterEvents.create({ event_name: 'api_calls', payload: { service_customer_id: customer.id, value: '1' } });
    expect(event.identifier).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers every documented error code', async () => {
    const other = await client.billing.meters.create({ display_name: 'gone', event_name: 'archived_calls', default_aggregation: { formula: 'sum' } });
    await client.billing.meters.deactivate(other.id);
    const create = (body: Record<string, unknown>) => api('POST', '/v2/billing/meter_events', { key, json: body });
    const payload = { service_customer_id: customer.id, value: '3' };
    const now = Date.now();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ event_name: 'nothing_here', payload }, 400, 'no_meter'],
      [{ event_name: 'archived_calls', payload }, 400, 'archived_meter'],
      [{ event_name: 'api_calls', payload: { value: '3' } }, 400, 'payload_no_customer_defined'],
      [{ event_name: 'api_calls', payload: { service_customer_id: customer.id } }, 400, 'payload_no_value_defined'],
      [{ event_name: 'api_calls', payload: { service_customer_id: customer.id, value: '-4' } }, 400, 'payload_invalid_value'],
      [{ event_name: 'api_calls', payload: { service_customer_id: customer.id, value: '2.5' } }, 400, 'payload_invalid_value'],
      [{ event_name: 'api_calls', payload: { service_customer_id: customer.id, value: '0' } }, 400, 'payload_invalid_value'],
      [{ event_name: 'api_calls', payload, timestamp: new Date(now - 36 * 86_400_000).toISOString() }, 400, 'timestamp_too_far_in_past'],
      [{ event_name: 'api_calls', payload, timestamp: new Date(now + 6 * 60_000).toISOString() }, 400, 'timestamp_in_future'],
    ];
    for (const [body, status, code] of cases) {
      const answer = await create(body);
      expect({ body, status: answer.status, code: answer.body.error?.code, type: answer.body.error?.type }).toEqual({
        body,
        status,
        code,
        type: 'invalid_request_error',
      });
    }

    expect((await create({ event_name: 'api_calls', payload, identifier: 'twice' })).status).toBe(200);
    const duplicate = await create({ event_name: 'api_calls', payload, identifier: 'twice' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.code).toBe('duplicate_meter_event');
  });

  it('turns away concurrent events for the same customer and meter with 409, counting every accepted one', async () => {
    const racer = await client.customers.create({ name: 'racer' });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api('POST', '/v2/billing/meter_events', {
          key,
          json: { event_name: 'api_calls', payload: { service_customer_id: racer.id, value: '1' }, identifier: `race-${i}` },
        }),
      ),
    );
    const accepted = answers.filter((answer) => answer.status === 200).length;
    const conflicts = answers.filter((answer) => answer.status === 409);

    expect(accepted + conflicts.length).toBe(40);
    expect(accepted).toBeGreaterThan(0);
    expect(conflicts.length).toBeGreaterThan(0);
    expect(conflicts[0]!.body.error).toMatchObject({ type: 'invalid_request_error', code: 'too_many_concurrent_requests' });
    expect(await eventually(async () => ((await total(meter.id, racer.id)) === accepted ? accepted : undefined))).toBe(accepted);
  });

  it('accepts exactly one of 50 parallel requests with one identifier', async () => {
    // Fifty customers, so that the usage lease of one customer and meter plays no part.
    const customers = await Promise.all(Array.from({ length: 50 }, (_, i) => client.customers.create({ name: `parallel ${i}` })));
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api('POST', '/v2/billing/meter_events', {
          key,
          json: { event_name: 'api_calls', payload: { service_customer_id: customers[i]!.id, value: '1' }, identifier: 'one-of-fifty' },
        }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400 && answer.body.error.code === 'duplicate_meter_event')).toHaveLength(49);
  });

  it('cancels an event with an adjustment, which completes and takes the usage out', async () => {
    const buyer = await client.customers.create({ name: 'buyer' });
    await client.v2.billing.meterEvents.create({ event_name: 'api_calls', payload: { service_customer_id: buyer.id, value: '10' }, identifier: 'keep-me' });
    await client.v2.billing.meterEvents.create({ event_name: 'api_calls', payload: { service_customer_id: buyer.id, value: '7' }, identifier: 'cancel-me' });
    await eventually(async () => ((await total(meter.id, buyer.id)) === 17 ? true : undefined));

    const adjustment = await client.v2.billing.meterEventAdjustments.create({ event_name: 'api_calls', type: 'cancel', cancel: { identifier: 'cancel-me' } });

    expect(adjustment).toMatchObject({
      object: 'v2.billing.meter_event_adjustment',
      event_name: 'api_calls',
      type: 'cancel',
      status: 'pending',
      cancel: { identifier: 'cancel-me' },
      livemode: false,
    });
    expect(await eventually(async () => ((await total(meter.id, buyer.id)) === 10 ? 10 : undefined))).toBe(10);
    const completed = await eventually(async () => {
      const answer = await api('GET', `/v2/billing/meter_event_adjustments/${adjustment.id}`, { key });
      return answer.body.status === 'complete' ? answer.body : undefined;
    });
    expect(completed.id).toBe(adjustment.id);

    const again = await api('POST', '/v2/billing/meter_event_adjustments', {
      key,
      json: { event_name: 'api_calls', type: 'cancel', cancel: { identifier: 'cancel-me' } },
    });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('meter_event_already_cancelled');
  });

  it('counts 1,000 events, then takes out the 100 cancelled ones: the summary is the sum of the 900 that stand', async () => {
    const buyers = await Promise.all(Array.from({ length: 4 }, (_, i) => client.customers.create({ name: `bulk ${i}` })));
    const value = (i: number) => (i % 7) + 1;
    // One client per customer, each sending in turn (a customer and meter take one event at a time).
    await Promise.all(
      buyers.map(async (buyer, b) => {
        for (let i = b; i < 1000; i += buyers.length) {
          const answer = await api('POST', '/v2/billing/meter_events', {
            key,
            json: { event_name: 'api_calls', payload: { service_customer_id: buyer.id, value: String(value(i)) }, identifier: `bulk-${i}` },
          });
          expect(answer.status).toBe(200);
        }
      }),
    );
    const cancelled = new Set(Array.from({ length: 100 }, (_, k) => k * 10 + 3));
    await Promise.all(
      [...cancelled].map(async (i) => {
        const answer = await api('POST', '/v2/billing/meter_event_adjustments', {
          key,
          json: { event_name: 'api_calls', type: 'cancel', cancel: { identifier: `bulk-${i}` } },
        });
        expect(answer.status).toBe(200);
      }),
    );

    for (const [b, buyer] of buyers.entries()) {
      let standing = 0;
      for (let i = b; i < 1000; i += buyers.length) if (!cancelled.has(i)) standing += value(i);
      expect(await eventually(async () => ((await total(meter.id, buyer.id)) === standing ? standing : undefined), 30_000)).toBe(standing);
    }
  }, 90_000);

  it('refuses an adjustment whose configuration does not fit its type, or that names no recent event', async () => {
    const missing = await api('POST', '/v2/billing/meter_event_adjustments', { key, json: { event_name: 'api_calls', type: 'cancel' } });
    const unknown = await api('POST', '/v2/billing/meter_event_adjustments', {
      key,
      json: { event_name: 'api_calls', type: 'cancel', cancel: { identifier: 'never-sent' } },
    });

    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_cancel_configuration' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('meter_event_not_found');
  });

  it('streams events with a session token and counts them', async () => {
    const streamer = await client.customers.create({ name: 'streamer' });
    const session = await client.v2.billing.meterEventSession.create();
    expect(session).toMatchObject({ object: 'v2.billing.meter_event_session', livemode: false });
    expect(Date.parse(session.expires_at) - Date.parse(session.created)).toBe(15 * 60 * 1000);

    const streamClient = sdk(session.authentication_token);
    await streamClient.v2.billing.meterEventStream.create({
      events: Array.from({ length: 100 }, (_, i) => ({
        event_name: 'api_calls',
        payload: { service_customer_id: streamer.id, value: '2' },
        identifier: `stream-${i}`,
      })),
    });
    // A repeated identifier in a later request is a duplicate: not counted again.
    await streamClient.v2.billing.meterEventStream.create({
      events: [{ event_name: 'api_calls', payload: { service_customer_id: streamer.id, value: '2' }, identifier: 'stream-0' }],
    });

    expect(await eventually(async () => ((await total(meter.id, streamer.id)) === 200 ? 200 : undefined))).toBe(200);
    const bad = await api('POST', '/v2/billing/meter_event_stream', { key: 'mes_tok_unknown', json: { events: [{ event_name: 'api_calls', payload: {} }] } });
    expect(bad.status).toBe(401);
  });

  it('reports an event for an unknown customer in an error report naming the code and the identifier', async () => {
    await client.v2.billing.meterEvents.create({
      event_name: 'api_calls',
      payload: { service_customer_id: 'cus_does_not_exist', value: '5' },
      identifier: 'ghost-usage',
    });

    // The report of the window the error was found in; other tests' errors may be in earlier windows.
    const fetched = await eventually(async () => {
      const events = await client.v2.core.events.list({ object_id: meter.id } as never);
      for (const event of events.data.filter((candidate) => candidate.type === 'v1.billing.meter.error_report_triggered')) {
        const full = (await client.v2.core.events.retrieve(event.id)) as unknown as { data: any; related_object: unknown };
        if (JSON.stringify(full.data).includes('ghost-usage')) return full;
      }
      return undefined;
    }, 20_000);

    expect(fetched.related_object).toEqual({ id: meter.id, type: 'billing.meter', url: `/v1/billing/meters/${meter.id}` });
    expect(fetched.data.reason.error_count).toBeGreaterThanOrEqual(1);
    const type = fetched.data.reason.error_types.find((entry: { code: string }) => entry.code === 'meter_event_customer_not_found');
    expect(type.sample_errors).toContainEqual({ error_message: expect.stringContaining('cus_does_not_exist'), request: { identifier: 'ghost-usage' } });
    expect(Date.parse(fetched.data.validation_end)).toBeGreaterThan(Date.parse(fetched.data.validation_start));
  });

  it('refuses an expired session token with temporary_session_expired, and a stream request of over 100 events', async () => {
    const token = 'mes_tok_expired_for_the_test';
    const table = stackTable();
    const created = Date.now() - 20 * 60_000;
    await table.put({
      TableName: table.name,
      Item: {
        PK: meterEventSession.pk(createHash('sha256').update(token).digest('hex')),
        SK: meterEventSession.sk(),
        id: 'mtrses_expired',
        scope: { accountId: stack.defaultPlatform.account, livemode: false },
        platformId: stack.defaultPlatform.account,
        created,
        sessionExpiresAt: created + 15 * 60_000,
      },
    });
    const expired = await sdk(token)
      .v2.billing.meterEventStream.create({ events: [{ event_name: 'api_calls', payload: { service_customer_id: customer.id, value: '1' } }] })
      .catch((error: unknown) => error);
    expect(expired).toMatchObject({ type: 'TemporarySessionExpiredError', statusCode: 401 });

    const session = await client.v2.billing.meterEventSession.create();
    const tooMany = await api('POST', '/v2/billing/meter_event_stream', {
      key: session.authentication_token,
      json: { events: Array.from({ length: 101 }, () => ({ event_name: 'api_calls', payload: { service_customer_id: customer.id, value: '1' } })) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.type).toBe('invalid_request_error');
  });

  it('reports streamed events that name no meter as v1.billing.meter.no_meter_found', async () => {
    const session = await client.v2.billing.meterEventSession.create();
    await sdk(session.authentication_token).v2.billing.meterEventStream.create({
      events: [{ event_name: 'no_such_meter', payload: { service_customer_id: customer.id, value: '1' }, identifier: 'lost-in-stream' }],
    });

    const report = await eventually(async () => {
      const events = await client.v2.core.events.list({ types: ['v1.billing.meter.no_meter_found'] } as never);
      return events.data[0];
    }, 20_000);
    const fetched = (await client.v2.core.events.retrieve(report.id)) as unknown as { data: any; related_object: unknown };
    expect(fetched.related_object ?? null).toBeNull();
    expect(fetched.data.reason.error_types).toContainEqual({
      code: 'no_meter',
      error_count: 1,
      sample_errors: [{ error_message: expect.stringContaining('no_such_meter'), request: { identifier: 'lost-in-stream' } }],
    });
  });
});
