import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { callScope, callTotals, meterAwsCalls, withCallScope, type CallScope } from '#shared/aws/aws-calls.ts';
import { meterUsage } from '#shared/data/keys.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import { registerUsageRoll } from '#shared/data/metering/rollups.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import { makeTable, type Table } from '#shared/data/table.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { hourMillis, lateAfterMillis, writerBoundMillis } from '#shared/meter-events/counting-plan.ts';
import type { MeterEventRecord, MeterWork } from '#shared/meter-events/meter-event.ts';
import { meterEventProcessor } from '#shared/meter-events/processor.ts';
import { meterEventService } from '#shared/meter-events/service.ts';
import { minuteUsageReader, usageSummaries } from '#shared/meter-events/summaries.ts';
import type { Meter } from '#shared/meters/meter.ts';
import { usageLeases } from '#shared/meter-events/usage-lease.ts';
import { wireUsageRollSweeper, wireUsageRollups } from '#shared/meter-events/wiring.ts';
import type { Caller, Scope } from '#shared/platform/types.ts';
import { fakePlatformStore } from '../support/fakes.ts';
import { newPlatform, sdk, stack, stackClient } from '../support/stack.ts';

const minuteMillis = 60_000;

/** The stack's table on a counted client, reading "now" from `clock`. */
const tableAt = (clock: () => number): Table => makeTable(meterAwsCalls(stackClient(), 'dynamodb'), stack.env.TABLE_NAME!, clock);

async function measured<T>(work: () => Promise<T>): Promise<{ result: T; scope: CallScope }> {
  const scope = callScope({ measure: true });
  const result = await withCallScope(scope, work);
  return { result, scope };
}

const queries = (scope: CallScope) => scope.calls.filter((call) => call.operation === 'Query').length;

/** Seeds minute items directly, 25 a BatchWriteItem, a few at once. */
async function seedMinutes(table: Table, pk: string, minutes: number[], value: number) {
  const chunks: number[][] = [];
  for (let start = 0; start < minutes.length; start += 25) chunks.push(minutes.slice(start, start + 25));
  const write = async (chunk: number[]) => {
    let requests = chunk.map((minute) => ({
      PutRequest: { Item: { PK: pk, SK: meterUsage.sk(minute), entity: 'meter_usage', minuteStart: minute, total: value, events: 1 } },
    }));
    while (requests.length > 0) requests = (await table.batchWrite(requests)) as typeof requests;
  };
  const lanes = Array.from({ length: 8 }, async (_, lane) => {
    for (let index = lane; index < chunks.length; index += 8) await write(chunks[index]!);
  });
  await Promise.all(lanes);
}

describe('usage read through hour rollups on DynamoDB Local', () => {
  let scope: Scope;

  beforeAll(async () => {
    scope = { accountId: (await newPlatform()).account, livemode: false };
  });

  it('reads a rolled month of usage every few minutes with one rollup Query page and small minute Queries, and a late event after the roll exactly', async () => {
    // Given a month of usage every five minutes (8,928 minute items, ~1.2 MB: what its rolled read costs does not
    // depend on how many minutes an hour holds, and seeding every minute of the month took ~30 s of the test run)
    const monthStart = Date.UTC(2026, 9, 1);
    const monthEnd = Date.UTC(2026, 10, 1);
    const partition = { scope, meterId: 'mtr_busy', customerId: `cus_${randomUUID().slice(0, 8)}` };
    const pk = meterUsage.pk(scope, partition.meterId, partition.customerId);
    const minutes = Array.from({ length: (monthEnd - monthStart) / (5 * minuteMillis) }, (_, i) => monthStart + i * 5 * minuteMillis);
    expect(minutes).toHaveLength(8_928);
    let now = monthEnd + 2 * hourMillis;
    const table = tableAt(() => now);
    await seedMinutes(table, pk, minutes, 3);
    const rollups = wireUsageRollups(table);
    const minuteReader = minuteUsageReader(dynamoMeterEventStore(table));
    const meter = { id: partition.meterId, formula: 'sum' as const };

    // When its partition is rolled (the scheduled roll: a week of hours a roll) and the month is read
    for (let round = 0; !(await rollups.roll(partition)).caughtUp; round++) expect(round).toBeLessThan(10);
    const { result: value, scope: read } = await measured(() => rollups.reader.aggregate(scope, meter, partition.customerId, monthStart, monthEnd));

    // Then one Query of rollups (744 hour items, one page) and the watermark's GetItem: no minute is read
    expect(value).toBe(3 * 8_928);
    expect(queries(read)).toBe(1);
    expect(read.calls.map((call) => call.operation).sort()).toEqual(['GetItem', 'Query']);
    // about 140 bytes an hour item, strongly consistent: ~105 KB, 26 read units, and one for the watermark
    expect(callTotals(read).readUnits).toBeLessThanOrEqual(28);

    // And a period with partial hours at its edges reads those minutes only (two small Queries)
    const { result: edged, scope: edgedRead } = await measured(() =>
      rollups.reader.aggregate(scope, meter, partition.customerId, monthStart + 17 * minuteMillis, monthEnd - 13 * minuteMillis),
    );
    // (17 minutes in: the events at minutes 0, 5, 10 and 15 left out; 13 minutes before the end: those at 50 and 55)
    expect(edged).toBe(3 * (8_928 - 6));
    expect(queries(edgedRead)).toBe(3);

    // And the summaries by day and by hour (composed from the hour rollups) are the minute reader's, window by window
    const meters = { get: async () => ({ id: partition.meterId, formula: 'sum' }) as Meter };
    const throughRollups = usageSummaries({ store: { usage: rollups.usage }, meters });
    const throughMinutes = usageSummaries({ store: dynamoMeterEventStore(table), meters });
    for (const grouping of ['day', 'hour'] as const) {
      const query = { customer: partition.customerId, start: monthStart + 7 * minuteMillis, end: monthEnd - 3 * hourMillis, grouping };
      const page = { limit: 100 };
      expect((await throughRollups.list(scope, partition.meterId, query, page)).items).toEqual(
        (await throughMinutes.list(scope, partition.meterId, query, page)).items,
      );
    }

    // When an event arrives late for an hour already rolled (through the lease path: a late marker first)
    now += hourMillis;
    const leases = usageLeases(dynamoMeterEventStore(table), () => now);
    const owner = randomUUID();
    const timestamp = monthStart + 10 * hourMillis + 30 * minuteMillis + 5;
    const event: MeterEventRecord = {
      eventName: 'busy',
      identifier: `late-${randomUUID()}`,
      payload: { value: '100' },
      timestamp,
      scope,
      platformId: scope.accountId,
      created: now,
      source: 'api',
      batchId: null,
      status: 'processed',
      meterId: partition.meterId,
      cancelAdjustmentId: null,
    };
    const lease = { scope, meter, customerId: partition.customerId, minute: Math.floor(timestamp / minuteMillis) * minuteMillis, owner };
    const { result: outcome, scope: lateWrite } = await measured(() =>
      leases.count(lease, event, { owner, identifier: event.identifier, created: now, value: 100, timestamp }, async () => {}),
    );
    expect(outcome).toBe('counted');
    // Then it costs one write unit more than an event on time (3), and every read counts it exactly
    expect(callTotals(lateWrite).writeUnits).toBe(4);
    const { result: afterLate, scope: lateRead } = await measured(() => rollups.reader.aggregate(scope, meter, partition.customerId, monthStart, monthEnd));
    expect(afterLate).toBe(3 * 8_928 + 100);
    expect(afterLate).toBe(await minuteReader.aggregate(scope, meter, partition.customerId, monthStart, monthEnd));
    // the dirty hour from its minutes (one small Query), until a roll computed past the writer bound trusts it
    expect(queries(lateRead)).toBe(2);
    now += writerBoundMillis;
    expect(await rollups.reader.aggregate(scope, meter, partition.customerId, monthStart, monthEnd)).toBe(3 * 8_928 + 100);
    const { scope: healed } = await measured(() => rollups.reader.aggregate(scope, meter, partition.customerId, monthStart, monthEnd));
    expect(queries(healed)).toBe(1);
  }, 300_000);

  it('rolls a registered partition on the schedule, daily, until its registration lapses', async () => {
    const partition = { scope, meterId: 'mtr_scheduled', customerId: `cus_${randomUUID().slice(0, 8)}` };
    const pk = meterUsage.pk(scope, partition.meterId, partition.customerId);
    // Ahead of the machine's clock, so the local stack's own scheduled roll never finds it due first
    let now = Math.floor(Date.now() / hourMillis) * hourMillis + 60 * 24 * hourMillis;
    const table = tableAt(() => now);
    await seedMinutes(
      table,
      pk,
      Array.from({ length: 48 * 60 }, (_, i) => now - 48 * hourMillis + i * minuteMillis),
      1,
    );
    // Given the partition registered (the action a metered subscription item adds to its transaction)
    await table.transact([registerUsageRoll(table, partition, now + 10 * 24 * hourMillis)]);
    const watermark = async () => table.getConsistent({ PK: pk, SK: meterUsage.watermarkSk() });
    expect((await watermark())?.GSI2PK).toMatch(/^METER_ROLLS_DUE#/);
    // When a day passes, the scheduled job rolls it (among whatever else the shared table has due)
    now += 24 * hourMillis;
    const sweeper = wireUsageRollSweeper(table);
    for (let round = 0; (((await watermark())?.rolledThrough as number | undefined) ?? 0) < now - 24 * hourMillis; round++) {
      expect(round).toBeLessThan(20);
      await sweeper.sweep(1000);
    }
    // Then its hours are rolled through what may be rolled, and it is due again a day later
    expect((await watermark())?.rolledThrough).toBe(Math.floor((now - lateAfterMillis - writerBoundMillis) / hourMillis) * hourMillis);
    expect((await watermark())?.GSI2SK).toMatch(new RegExp(`^${String(now + 24 * hourMillis).padStart(15, '0')}#`));
    // When its registration has ended, the next roll takes it off the schedule
    now += 12 * 24 * hourMillis;
    await table.update({
      TableName: table.name,
      Key: { PK: pk, SK: meterUsage.watermarkSk() },
      UpdateExpression: 'SET GSI2SK = :due',
      ExpressionAttributeValues: { ':due': `${String(now - 1).padStart(15, '0')}#${pk}` },
    });
    for (let round = 0; (await watermark())?.GSI2PK !== undefined; round++) {
      expect(round).toBeLessThan(20);
      await sweeper.sweep(1000);
    }
    expect((await watermark())?.rolledThrough).toBe(Math.floor((now - lateAfterMillis - writerBoundMillis) / hourMillis) * hourMillis);
  });

  it('reads every range exactly as the minute reader, whatever counted events, rolls and reads interleave on the real table', async () => {
    const t0 = Date.UTC(2026, 10, 10);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            timestamp: fc.integer({ min: t0, max: t0 + 5 * hourMillis }),
            value: fc.integer({ min: 1, max: 50 }),
            lateness: fc.oneof(fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: 0, max: 4 * hourMillis })),
          }),
          { maxLength: 12 },
        ),
        fc.array(fc.integer({ min: t0, max: t0 + 10 * hourMillis }), { maxLength: 4 }),
        fc.array(
          fc.tuple(
            fc.integer({ min: t0, max: t0 + 10 * hourMillis }),
            fc.integer({ min: t0 - hourMillis, max: t0 + 6 * hourMillis }),
            fc.integer({ min: 0, max: 8 * hourMillis }),
          ),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        async (events, rolls, reads) => {
          const partition = { scope, meterId: 'mtr_property', customerId: `cus_${randomUUID().slice(0, 12)}` };
          let now = t0;
          const table = tableAt(() => now);
          const store = dynamoMeterEventStore(table);
          const leases = usageLeases(store, () => now);
          const rollups = wireUsageRollups(table);
          const minuteReader = minuteUsageReader(store);
          type Step = { at: number; run: () => Promise<void> };
          const steps: Step[] = [];
          for (const { timestamp, value, lateness } of events) {
            steps.push({
              at: timestamp + lateness,
              run: async () => {
                const owner = randomUUID();
                const identifier = `property-${randomUUID()}`;
                const lease = {
                  scope,
                  meter: { id: partition.meterId, formula: 'last' as const },
                  customerId: partition.customerId,
                  minute: Math.floor(timestamp / minuteMillis) * minuteMillis,
                  owner,
                };
                const record: MeterEventRecord = {
                  eventName: 'property',
                  identifier,
                  payload: {},
                  timestamp,
                  scope,
                  platformId: scope.accountId,
                  created: now,
                  source: 'api',
                  batchId: null,
                  status: 'processed',
                  meterId: partition.meterId,
                  cancelAdjustmentId: null,
                };
                expect(await leases.count(lease, record, { owner, identifier, created: now, value, timestamp }, async () => {})).toBe('counted');
              },
            });
          }
          for (const at of rolls) steps.push({ at, run: async () => void (await rollups.roll(partition)) });
          for (const [at, from, length] of reads) {
            steps.push({
              at,
              run: async () => {
                for (const formula of ['sum', 'count', 'last'] as const) {
                  const meter = { id: partition.meterId, formula };
                  const expected = await minuteReader.aggregate(scope, meter, partition.customerId, from, from + length);
                  expect(await rollups.reader.aggregate(scope, meter, partition.customerId, from, from + length)).toBe(expected);
                }
              },
            });
          }
          steps.sort((a, b) => a.at - b.at);
          for (const step of steps) {
            now = step.at;
            await step.run();
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('late markers on every path that changes a minute’s usage', () => {
  const table = tableAt(Date.now);
  const store = dynamoMeterEventStore(table);
  const meters = dynamoMeterRepository(table);
  const queued: MeterWork[] = [];
  const service = meterEventService({
    store,
    meters,
    customerExists: async () => true,
    queue: { send: async (work) => void queued.push(...work) },
    apiKeys: fakePlatformStore(),
  });
  const processor = meterEventProcessor({ store, meters, customerExists: async () => true, errorWindowMillis: 60_000 });
  let origin: EventOrigin;
  let caller: Caller;
  let scope: Scope;
  const meterIds: Record<string, string> = {};

  beforeAll(async () => {
    const platform = await newPlatform();
    const client = sdk(platform.secret_key);
    for (const formula of ['sum', 'last'] as const) {
      meterIds[formula] = (
        await client.billing.meters.create({ display_name: `late ${formula}`, event_name: `late_${formula}`, default_aggregation: { formula } })
      ).id;
    }
    scope = { accountId: platform.account, livemode: false };
    origin = { scope, platformId: platform.account, request: null, apiVersion: '2026-01-28.clover' };
    caller = { platformId: platform.account, livemode: false, keyKind: 'secret', credentialId: 'late', scope };
  });

  /** Two hours ago (its hour ended over five minutes ago: late), or now (on time). */
  const lateTime = () => Math.floor((Date.now() - 2 * hourMillis) / hourMillis) * hourMillis + 17 * minuteMillis;
  const markerOf = async (formula: string, customer: string, timestamp: number) =>
    (
      await table.getConsistent({
        PK: meterUsage.pk(scope, meterIds[formula]!, customer),
        SK: meterUsage.hourSk(Math.floor(timestamp / hourMillis) * hourMillis),
      })
    )?.dirtyAt;

  async function process() {
    const work = queued.splice(0);
    await processor.process(work);
  }

  it('marks the hour of a late API event (the lease released on the request path) and nothing for one on time', async () => {
    const [late, onTime] = [lateTime(), Date.now()];
    const { scope: lateCost } = await measured(() =>
      service.create(origin, {
        event_name: 'late_sum',
        identifier: `late-api-${randomUUID()}`,
        payload: { service_customer_id: 'cus_lateapi', value: '1' },
        timestamp: late,
      }),
    );
    const { scope: onTimeCost } = await measured(() =>
      service.create(origin, {
        event_name: 'late_sum',
        identifier: `ontime-api-${randomUUID()}`,
        payload: { service_customer_id: 'cus_lateapi', value: '1' },
        timestamp: onTime,
      }),
    );
    expect(await markerOf('sum', 'cus_lateapi', late)).toBeGreaterThan(late);
    expect(await markerOf('sum', 'cus_lateapi', onTime)).toBeUndefined();
    expect(callTotals(lateCost).writeUnits).toBe(4);
    expect(callTotals(onTimeCost).writeUnits).toBe(3);
    queued.length = 0;
  });

  it('marks the hours of late stream events counted with their batch’s mark and under the lease in the worker', async () => {
    const late = lateTime();
    const marked = Array.from({ length: 10 }, (_, i) => ({
      event_name: 'late_sum',
      identifier: `late-marked-${randomUUID()}-${i}`,
      payload: { service_customer_id: 'cus_latemarked', value: '1' },
      timestamp: late,
    }));
    const pairs = Array.from({ length: 10 }, (_, i) => ({
      event_name: 'late_sum',
      identifier: `late-pairs-${randomUUID()}-${i}`,
      payload: { service_customer_id: `cus_latepairs${i % 5}`, value: '1' },
      timestamp: late,
    }));
    await service.acceptStream(caller, marked);
    await service.acceptStream(caller, pairs);
    await process();
    expect(await markerOf('sum', 'cus_latemarked', late)).toBeGreaterThan(late);
    for (let i = 0; i < 5; i++) expect(await markerOf('sum', `cus_latepairs${i}`, late)).toBeGreaterThan(late);
  });

  it('marks the hour of a late cancellation (the usage transaction, and forgetting a cancelled `last`)', async () => {
    const late = lateTime();
    const identifier = `late-cancel-${randomUUID()}`;
    const customer = `cus_latecancel${randomUUID().slice(0, 6)}`;
    // On time for its hour when counted (its hour is long over, but the marker is what we look for after the cancel)
    await service.create(origin, { event_name: 'late_last', identifier, payload: { service_customer_id: customer, value: '7' }, timestamp: late });
    await table.delete({
      TableName: table.name,
      Key: { PK: meterUsage.pk(scope, meterIds.last!, customer), SK: meterUsage.hourSk(Math.floor(late / hourMillis) * hourMillis) },
    });
    queued.length = 0;
    await service.adjust(origin, { event_name: 'late_last', type: 'cancel', cancel: { identifier } });
    await process();
    expect(await markerOf('last', customer, late)).toBeGreaterThan(late);
    const reader = wireUsageRollups(table).reader;
    expect(await reader.aggregate(scope, { id: meterIds.last!, formula: 'last' }, customer, late - hourMillis, late + hourMillis)).toBe(0);
  });
});
