import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { leftSettleWork } from '#local/lease-recovery.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import type { LeaseEntry, MeterEventRecord, UsageLease } from '#shared/meter-events/meter-event.ts';
import { meterEventProcessor } from '#shared/meter-events/processor.ts';
import { usageLeases } from '#shared/meter-events/usage-lease.ts';
import type { Scope } from '#shared/platform/types.ts';
import { newPlatform, stackTable } from '../support/stack.ts';
import { meterFixture } from '../support/fakes.ts';

/**
 * API events are counted in the write that ends their minute's usage lease (TABLE_DESIGN.md, 18). These
 * are the ways a request can stop half-way — after the take, after the claim, or only slowed down and
 * coming back after someone else settled it — and what must hold whatever happens: every event whose
 * identifier claim stands is counted exactly once, and no other.
 */
describe('API events counted under the usage lease', () => {
  const table = stackTable();
  const store = dynamoMeterEventStore(table);
  let scope: Scope;
  let now = Date.now();
  const leases = usageLeases(store, () => now);
  const minute = Math.floor(now / 60_000) * 60_000;

  beforeAll(async () => {
    scope = { accountId: (await newPlatform()).account, livemode: false };
  });

  /** One request's lease, entry and event for `customer`, with a value. */
  function request(customer: string, identifier: string, value: number) {
    const owner = randomUUID();
    const lease: UsageLease = { scope, meter: { id: 'mtr_lease', formula: 'sum' }, customerId: customer, minute, owner };
    const entry: LeaseEntry = { owner, identifier, created: now, value, timestamp: minute + 1_000 };
    const event: MeterEventRecord = {
      eventName: 'lease_calls',
      identifier,
      payload: { value: String(value) },
      timestamp: entry.timestamp,
      scope,
      platformId: scope.accountId,
      created: now,
      source: 'api',
      batchId: null,
      status: 'processed',
      meterId: 'mtr_lease',
      cancelAdjustmentId: null,
    };
    return { lease, entry, event };
  }

  const usageOf = async (customer: string) => (await store.usage(scope, 'mtr_lease', customer, minute, minute + 60_000))[0] ?? { total: 0, events: 0 };
  const announce = async () => {};

  it('counts the event of a request that stopped after its claim in the next holder’s release, once', async () => {
    const customer = `cus_${randomUUID()}`;
    const stopped = request(customer, `stopped-${customer}`, 5);
    expect(await store.takeLease(stopped.lease, [stopped.entry], now)).toEqual([]);
    expect(await store.claim(stopped.event, stopped.lease.owner)).toBe('claimed');

    expect(await leases.count(request(customer, 'x', 1).lease, request(customer, 'x', 1).event, request(customer, 'x', 1).entry, announce)).toBe('busy');
    now += 6_000;
    const next = request(customer, `next-${customer}`, 2);
    expect(await leases.count(next.lease, next.event, next.entry, announce)).toBe('counted');
    expect(await usageOf(customer)).toMatchObject({ total: 7, events: 2 });

    // The stopped request comes back: its release finds the lease taken over and counts nothing.
    expect(await store.releaseLease(stopped.lease, [{ entry: stopped.entry, setsLast: true }], [stopped.lease.owner])).toBe(false);
    await leases.settle(stopped.lease, stopped.entry);
    expect(await usageOf(customer)).toMatchObject({ total: 7, events: 2 });
  });

  it('fences the identifier of a request that stopped before its claim: its late claim is refused, a retry may take it', async () => {
    const customer = `cus_${randomUUID()}`;
    const stopped = request(customer, `slow-${customer}`, 5);
    await store.takeLease(stopped.lease, [stopped.entry], now);
    now += 6_000;
    const next = request(customer, `other-${customer}`, 2);
    expect(await leases.count(next.lease, next.event, next.entry, announce)).toBe('counted');

    expect(await store.claim(stopped.event, stopped.lease.owner)).toBe('fenced');
    const retry = request(customer, `slow-${customer}`, 5);
    expect(await leases.count(retry.lease, retry.event, retry.entry, announce)).toBe('counted');
    expect(await usageOf(customer)).toMatchObject({ total: 7, events: 2 });
  });

  it('settles a stopped request from its settle message when no one takes the lease again, and only once', async () => {
    const customer = `cus_${randomUUID()}`;
    const stopped = request(customer, `alone-${customer}`, 4);
    await store.takeLease(stopped.lease, [stopped.entry], now);
    await store.claim(stopped.event, stopped.lease.owner);
    // While its lease runs, the message comes back later (the request may still release).
    await expect(leases.settle(stopped.lease, stopped.entry)).rejects.toThrow(/held with an unsettled event/);
    now += 6_000;
    await leases.settle(stopped.lease, stopped.entry);
    await leases.settle(stopped.lease, stopped.entry);
    expect(await usageOf(customer)).toMatchObject({ total: 4, events: 1 });
  });

  it('settles a stream worker that stopped under a lease when the batch comes back: each event counted once', async () => {
    const customer = `cus_${randomUUID()}`;
    const meter = meterFixture({ id: 'mtr_lease', scope, created: now, updated: now, displayName: 'lease', eventName: 'lease_calls' });
    const processor = meterEventProcessor({
      store,
      meters: { findByEventName: async () => meter, get: async () => meter },
      customerExists: async () => true,
      errorWindowMillis: 60_000,
      clock: () => now,
    });
    const batch = {
      id: `mtrbatch_${randomUUID()}`,
      scope,
      platformId: scope.accountId,
      created: now,
      events: [1, 2].map((n) => ({
        eventName: 'lease_calls',
        identifier: `${customer}-${n}`,
        payload: { service_customer_id: customer, value: String(n) },
        timestamp: minute + 1_000,
      })),
    };
    const [first, second] = batch.events.map((input) => request(customer, input.identifier, Number(input.payload.value)));
    // A try that took the lease for both events, claimed the first, and stopped.
    const owner = `stream_${randomUUID()}`;
    const lease = { ...first!.lease, owner };
    await store.takeLease(
      lease,
      [first!, second!].map((r) => ({ ...r.entry, owner })),
      now,
    );
    await store.claim({ ...first!.event, source: 'stream', batchId: batch.id, payload: batch.events[0]!.payload }, owner);

    now += 6_000;
    await processor.process([{ kind: 'batch', batch }]);
    await processor.process([{ kind: 'batch', batch }]);
    expect(await usageOf(customer)).toMatchObject({ total: 3, events: 2 });
  });

  it('sends back only the messages whose events wait on a lease that stays held; the rest of the batch is counted', async () => {
    const [held, free] = [`cus_${randomUUID()}`, `cus_${randomUUID()}`];
    const meter = meterFixture({ id: 'mtr_lease', scope, created: now, updated: now, displayName: 'lease', eventName: 'lease_calls' });
    // Each look at the clock is a second later: the worker's wait for the held lease runs out at once.
    const processor = meterEventProcessor({
      store,
      meters: { findByEventName: async () => meter, get: async () => meter },
      customerExists: async () => true,
      errorWindowMillis: 60_000,
      clock: () => (now += 1_000),
    });
    const batchOf = (customer: string) => ({
      kind: 'batch' as const,
      batch: {
        id: `mtrbatch_${randomUUID()}`,
        scope,
        platformId: scope.accountId,
        created: now,
        events: [{ eventName: 'lease_calls', identifier: `${customer}-1`, payload: { service_customer_id: customer, value: '2' }, timestamp: minute + 1_000 }],
      },
    });
    const [waiting, counted] = [batchOf(held), batchOf(free)];
    const holder = { ...request(held, `holder-${held}`, 1).lease, owner: `holder_${randomUUID()}` };
    expect(await store.takeLease(holder, [], now + 3_600_000)).toEqual([]);

    expect(await processor.process([waiting, counted])).toEqual([waiting]);
    expect(await usageOf(free)).toMatchObject({ total: 2, events: 1 });
    expect(await usageOf(held)).toMatchObject({ total: 0, events: 0 });

    // Once the lease is released, the message that came back is counted.
    await store.releaseLease(holder, [], [holder.owner]);
    expect(await processor.process([waiting])).toEqual([]);
    expect(await usageOf(held)).toMatchObject({ total: 2, events: 1 });
  });

  it('finds a lease left with an entry in the table (the local stack’s recovery of settle messages lost with its queues)', async () => {
    const customer = `cus_${randomUUID()}`;
    const stopped = request(customer, `lost-${customer}`, 6);
    await store.takeLease(stopped.lease, [stopped.entry], now);
    await store.claim(stopped.event, stopped.lease.owner);
    const meters = { get: async () => undefined };
    const found = (await leftSettleWork(table, meters)).filter((work) => work.kind === 'settle' && work.lease.customerId === customer);
    expect(found).toEqual([{ kind: 'settle', lease: { ...stopped.lease, meter: { id: 'mtr_lease', formula: 'sum' } }, entry: stopped.entry }]);

    now += 6_000;
    for (const work of found) if (work.kind === 'settle') await leases.settle(work.lease, work.entry);
    expect(await usageOf(customer)).toMatchObject({ total: 6, events: 1 });
  });

  it('counts exactly the events whose claims stand, whatever requests stop, come back late, or repeat identifiers', async () => {
    const step = fc.record({
      identifier: fc.integer({ min: 0, max: 3 }),
      value: fc.integer({ min: 1, max: 9 }),
      stop: fc.constantFrom('none', 'after-take', 'after-claim', 'slow'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const customer = `cus_${randomUUID()}`;
        const identifiers = steps.map((s) => `${customer}-${s.identifier}`);
        const late: Array<ReturnType<typeof request>> = [];
        const all: Array<ReturnType<typeof request>> = [];
        for (const [index, s] of steps.entries()) {
          now += 6_000;
          const r = request(customer, identifiers[index]!, s.value);
          all.push(r);
          if (s.stop === 'none') {
            await leases.count(r.lease, r.event, r.entry, announce);
            continue;
          }
          await store.takeLease(r.lease, [r.entry], now);
          if (s.stop === 'after-claim') await store.claim(r.event, r.lease.owner);
          if (s.stop === 'slow') late.push(r);
        }
        // The slow ones come back: they claim and release, as a live request would, after the others.
        for (const r of late) {
          const claimed = (await store.claim(r.event, r.lease.owner)) === 'claimed';
          await store.releaseLease(r.lease, claimed ? [{ entry: r.entry, setsLast: true }] : [], [r.lease.owner]);
        }
        now += 6_000;
        for (const r of all) await leases.settle(r.lease, r.entry);

        // What stands: each identifier's stored event, if it is one of these requests' events.
        const standing = new Map<string, number>();
        for (const r of all) {
          const stored = await store.getEvent(scope, r.event.identifier);
          if (stored && stored.created === r.event.created && Number(stored.payload.value) === r.entry.value) standing.set(r.event.identifier, r.entry.value);
        }
        const usage = await usageOf(customer);
        expect({ events: usage.events, total: usage.total }).toEqual({ events: standing.size, total: [...standing.values()].reduce((a, b) => a + b, 0) });
      }),
      { numRuns: 40 },
    );
  });
});
