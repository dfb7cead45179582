import { beforeAll, describe, expect, it } from 'vitest';
import { callScope, callTotals, withCallScope } from '#shared/aws/aws-calls.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import type { Caller } from '#shared/platform/types.ts';
import type { MeterWork } from '#shared/meter-events/meter-event.ts';
import { meterEventProcessor } from '#shared/meter-events/processor.ts';
import { meterEventService } from '#shared/meter-events/service.ts';
import { invoke } from '../support/handler-harness.ts';
import { fakePlatformStore } from '../support/fakes.ts';
import { meteredStackTable, newPlatform, sdk } from '../support/stack.ts';

/**
 * The write units one meter event costs on DynamoDB, as DynamoDB Local reports them
 * (`ReturnConsumedCapacity: INDEXES`, counted by shared/aws/aws-calls.ts): the request path and the worker's
 * processing, per event. docs/capacity.md states the same figures; a change to the write path that moves
 * them fails here until the model (and the cost table) is updated with it.
 */
const expected = {
  /**
   * One event per request (POST /v2/billing/meter_events), 20 customers: the take of the minute's usage
   * lease (1), the identifier claim (1), the release that counts the event into the minute (1); the settle
   * messages then find every event counted (a consistent read each, no write).
   */
  api: { request: 3, processing: 0 },
  /**
   * One stream request of 100 events (a 15 KB batch item, and a small due item with its index entry: 17),
   * processed as one message: a conditional put per event claiming it for the batch (1 each), the minute's
   * usage with the batch's mark (4, transactional), then the due item's index entry removed (2).
   */
  stream100: { request: 0.17, processing: 1.06 },
  /** One stream request of 100 events of 100 customers (one each): each counted at once under its lease. */
  streamLone: { request: 3, processing: 0 },
  /**
   * One stream request of 100 events of 50 customers (two each): the batch (0.16), then in the worker each
   * customer's two events under their minute's lease, one take, two claims, one release (2 each), and the
   * due item's index entry removed (0.02).
   */
  streamPairs: { request: 0.16, processing: 2.02 },
  /** One stream request of one event: counted at once under its lease, as an API event is. */
  stream1: { request: 3, processing: 0 },
};

/** A table client whose calls are counted inside a call scope, on the local stack's DynamoDB. */
function meteredTable() {
  return meteredStackTable();
}

async function writeUnits(work: () => Promise<unknown>): Promise<number> {
  const scope = callScope({ measure: true });
  await withCallScope(scope, work);
  return callTotals(scope).writeUnits;
}

/**
 * A stream request's 15 KB batch item may take one write unit more or less from run to run: DynamoDB sizes
 * a number by its significant digits, so the events' timestamps move the item across a kilobyte now and
 * then. The processing figure is exact.
 */
function expectBatchCost(actual: { request: number; processing: number }, wanted: { request: number; processing: number }) {
  expect(actual.processing).toBe(wanted.processing);
  expect(Math.abs(actual.request - wanted.request)).toBeLessThanOrEqual(0.0100001);
}

describe('what a meter event costs in DynamoDB write units', () => {
  let origin: EventOrigin;
  let caller: Caller;
  let customers: string[];
  const queued: MeterWork[] = [];
  const table = meteredTable();
  const store = dynamoMeterEventStore(table);
  const meters = dynamoMeterRepository(table);
  const service = meterEventService({
    store,
    meters,
    customerExists: async () => true,
    queue: { send: async (work) => void queued.push(...work) },
    apiKeys: fakePlatformStore(),
  });
  const processor = meterEventProcessor({ store, meters, customerExists: async () => true, errorWindowMillis: 60_000 });

  beforeAll(async () => {
    const platform = await newPlatform();
    const client = sdk(platform.secret_key);
    await client.billing.meters.create({ display_name: 'capacity', event_name: 'capacity_calls', default_aggregation: { formula: 'sum' } });
    customers = (await Promise.all(Array.from({ length: 20 }, (_, i) => client.customers.create({ name: `capacity ${i}` })))).map((customer) => customer.id);
    const scope = { accountId: platform.account, livemode: false };
    origin = { scope, platformId: platform.account, request: null, apiVersion: '2026-01-28.clover' };
    caller = { platformId: platform.account, livemode: false, keyKind: 'secret', credentialId: 'capacity', scope };
  });

  /** Stores through the service (the request path), then processes what it queued in one batch (the worker). */
  async function measure(events: number, accept: () => Promise<unknown>) {
    queued.length = 0;
    const request = await writeUnits(accept);
    const work = [...queued];
    const processing = await writeUnits(() => processor.process(work));
    return { request: round(request / events), processing: round(processing / events) };
  }

  it('per event sent alone: the lease taken, the identifier claimed, the lease released with the event counted', async () => {
    const result = await measure(20, () =>
      Promise.all(
        customers.map((customer, i) =>
          service.create(origin, { event_name: 'capacity_calls', identifier: `capacity-api-${i}`, payload: { service_customer_id: customer, value: '1' } }),
        ),
      ),
    );
    expect(result).toEqual(expected.api);
  });

  it('per event of a 100-event stream request: the batch, then one claim per event and the usage with the batch’s mark', async () => {
    const events = Array.from({ length: 100 }, (_, i) => ({
      event_name: 'capacity_calls',
      identifier: `capacity-stream-${i}`,
      payload: { service_customer_id: customers[0]!, value: '1' },
    }));
    expectBatchCost(await measure(100, () => service.acceptStream(caller, events)), expected.stream100);
  });

  it('per event of a 100-event stream request over 100 customers: each counted at once under its lease', async () => {
    const events = Array.from({ length: 100 }, (_, i) => ({
      event_name: 'capacity_calls',
      identifier: `capacity-lone-${i}`,
      payload: { service_customer_id: `cus_capacitylone${i}`, value: '1' },
    }));
    expect(await measure(100, () => service.acceptStream(caller, events))).toEqual(expected.streamLone);
  });

  it('per event of a 100-event stream request over 50 customers: the batch, then each customer’s two events under one lease', async () => {
    const events = Array.from({ length: 100 }, (_, i) => ({
      event_name: 'capacity_calls',
      identifier: `capacity-pairs-${i}`,
      payload: { service_customer_id: `cus_capacitypairs${i % 50}`, value: '1' },
    }));
    expectBatchCost(await measure(100, () => service.acceptStream(caller, events)), expected.streamPairs);
  });

  it('per event of a one-event stream request', async () => {
    const events = [{ event_name: 'capacity_calls', identifier: 'capacity-stream-single', payload: { service_customer_id: customers[1]!, value: '1' } }];
    expect(await measure(1, () => service.acceptStream(caller, events))).toEqual(expected.stream1);
  });
});

/**
 * One meter event through a whole handler (authentication, the meter-events rate counter, the service with
 * the request's idempotency, the settle message), as the SDK sends it: `POST /v1/billing/meter_events` as a form, `POST
 * /v2/billing/meter_events` as JSON, each with an `Idempotency-Key`.
 */
describe('what a meter event costs through the v1 and the v2 endpoint', () => {
  const reads = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
  let key: string;
  let customer: string;

  beforeAll(async () => {
    const platform = await newPlatform();
    key = platform.secret_key;
    const client = sdk(key);
    await client.billing.meters.create({ display_name: 'wire capacity', event_name: 'wire_calls', default_aggregation: { formula: 'sum' } });
    customer = (await client.customers.create({ name: 'wire capacity' })).id;
  });

  const send = {
    v1: (identifier: string) => ({
      method: 'POST',
      path: '/v1/billing/meter_events',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `wire-${identifier}` },
      body: new URLSearchParams({ event_name: 'wire_calls', 'payload[service_customer_id]': customer, 'payload[value]': '1', identifier }).toString(),
    }),
    v2: (identifier: string) => ({
      method: 'POST',
      path: '/v2/billing/meter_events',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `wire-${identifier}` },
      body: JSON.stringify({ event_name: 'wire_calls', payload: { service_customer_id: customer, value: '1' }, identifier }),
    }),
  };
  const handlers = { v1: 'functions/http/v1/billing/meter-events/create.ts', v2: 'functions/http/v2/billing/meter-events/create.ts' };

  /** Sends one event and answers what it cost: every call, and the writes alone (what caches cannot take away). */
  async function measured(wire: 'v1' | 'v2', identifier: string) {
    const scope = callScope({ measure: true });
    const answer = await withCallScope(scope, () => invoke(handlers[wire], send[wire](identifier)));
    expect(answer.statusCode, JSON.stringify(answer.json)).toBe(200);
    const totals = callTotals(scope);
    return {
      calls: totals.calls,
      writeUnits: totals.writeUnits,
      // Sorted: the settle message goes out while the lease is taken.
      writes: scope.calls
        .filter((call) => !reads.has(call.operation))
        .map((call) => call.operation)
        .sort(),
    };
  }

  it('costs the same calls and write units on either wire', async () => {
    // Given both handlers warm (the API key, the account's secret and the meter read once)
    await measured('v1', 'wire-warm-v1');
    await measured('v2', 'wire-warm-v2');

    // When events are sent in turn on each (one customer, one at a time: each takes the minute's lease alone)
    const runs = { v1: [] as Awaited<ReturnType<typeof measured>>[], v2: [] as Awaited<ReturnType<typeof measured>>[] };
    for (let i = 0; i < 3; i++) {
      runs.v1.push(await measured('v1', `wire-v1-${i}`));
      runs.v2.push(await measured('v2', `wire-v2-${i}`));
    }

    // Then every event writes the same, in the same calls: the rate counter (an update: one request at a time,
    // each its own count), the settle message, the lease taken (an update), the identifier claimed (a put,
    // which keeps the Idempotency-Key too), the lease released with the event counted (an update): 4 write
    // units, the 3 of the event and 1 for the counter; no idempotency record
    const [first] = runs.v1;
    expect(first).toMatchObject({
      writeUnits: 4,
      writes: ['PutItem', 'SendMessageBatch', 'UpdateItem', 'UpdateItem', 'UpdateItem'],
    });
    for (const run of [...runs.v1, ...runs.v2])
      expect({ writeUnits: run.writeUnits, writes: run.writes }).toEqual({ writeUnits: first!.writeUnits, writes: first!.writes });
    // And, warm, the same number of calls (a cached read that lapsed between two events may add one to either)
    expect(Math.min(...runs.v1.map((run) => run.calls))).toBe(Math.min(...runs.v2.map((run) => run.calls)));
  });
});

const round = (value: number) => Math.round(value * 100) / 100;
