import { describe, expect, it } from 'vitest';
import { NotFoundError } from '#shared/core/errors.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Scope } from '#shared/platform/types.ts';
import { addIntervals, advanceLimit, billingTime, testClockLifetimeMillis, testClockService } from '#shared/test-clocks/service.ts';
import type { ClockRunOutcome, TestClock, TestClockRepository } from '#shared/test-clocks/test-clock.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_clocks', livemode: false };
const jan2030 = Date.UTC(2030, 0, 1) / 1000;

const customers = new Map<string, Customer>();

function memoryClocks(): TestClockRepository & { items: Map<string, TestClock> } {
  const store = memoryOwnedStore<TestClock>();
  return {
    ...store,
    async delete(clock) {
      const current = await store.get(clock.scope, clock.id);
      if (current?.version !== clock.version) return false;
      return store.delete(clock.scope, clock.id);
    },
    async createWithCustomer(clock, customer, limit) {
      if (customers.get(customer.id)?.version !== customer.version - 1) return 'conflict';
      if (!(await store.create(clock, { limit }))) return 'limit';
      customers.set(customer.id, customer);
      return 'written';
    },
  };
}

function setup(outcomes: Array<ClockRunOutcome | 'throw'> = []) {
  const repository = memoryClocks();
  const recorded = recordingEmitter();
  let now = Date.UTC(2026, 10, 26);
  const deleted: string[] = [];
  const runs: Array<{ clockId: string; target: number }> = [];
  const woken: string[] = [];
  const service = testClockService({
    repository,
    customers: {
      get: async (_scope, id) => customers.get(id),
      hasSubscriptions: async (_scope, id) => id.startsWith('cus_subscribed'),
    },
    events: recorded.events,
    deleteCustomer: async (_origin, id) => {
      if (id.startsWith('cus_gone')) throw new NotFoundError('customer', id);
      deleted.push(id);
      // As the customer delete path does: the customer leaves its clock, stepping the clock's version.
      const [key, clock] = [...repository.items.entries()].find(([, each]) => each.customers.includes(id)) ?? [];
      if (key && clock) repository.items.set(key, { ...clock, version: clock.version + 1, customers: clock.customers.filter((other) => other !== id) });
    },
    intervals: async () => [{ interval: 'month', intervalCount: 1 }],
    runWork: async (_scope, clockId, target) => {
      runs.push({ clockId, target });
      const outcome = outcomes.shift() ?? 'done';
      if (outcome === 'throw') throw new Error('a processor failed');
      return outcome;
    },
    wake: async (_scope, id) => void woken.push(id),
    clock: () => now,
  });
  const types = () => recorded.written.flatMap((outbox) => outbox.snapshotEvents.map((event) => event.type));
  return { service, repository, deleted, runs, woken, types, later: (millis: number) => (now += millis) };
}

describe('test clocks (service with the shared fakes)', () => {
  it('Given a ready clock, When it advances, Then it is advancing and due now with its event and a wake-up message, and a second advance is refused', async () => {
    const { service, woken, types } = setup();
    const clock = await service.create(originOf(scope), { frozen_time: jan2030 });

    const advancing = await service.advance(originOf(scope), clock.id, jan2030 + 86_400);

    expect(advancing).toMatchObject({ status: 'advancing', targetFrozenTime: (jan2030 + 86_400) * 1000, due: { at: expect.any(Number), testClock: null } });
    expect(advancing.due.at).toBeLessThan(clock.deletesAfter);
    expect(woken).toEqual([clock.id]);
    expect(types()).toEqual(['test_helpers.test_clock.created', 'test_helpers.test_clock.advancing']);
    await expect(service.advance(originOf(scope), clock.id, jan2030 + 2 * 86_400)).rejects.toMatchObject({ code: 'test_clock_advancing' });
    await expect(service.delete(originOf(scope), clock.id)).rejects.toMatchObject({ code: 'test_clock_advancing' });
  });

  it('Given an advancing clock whose work is cut short, When it is processed again, Then the next run finishes it: ready at the target, one ready event', async () => {
    const { service, repository, runs, types } = setup(['unfinished', 'done']);
    const clock = await service.create(originOf(scope), { frozen_time: jan2030 });
    await service.advance(originOf(scope), clock.id, jan2030 + 86_400);

    await service.processDue(scope, clock.id, Date.now());
    expect(await repository.get(scope, clock.id)).toMatchObject({ status: 'advancing' });
    await service.processDue(scope, clock.id, Date.now());
    await service.processDue(scope, clock.id, Date.now());

    expect(await repository.get(scope, clock.id)).toMatchObject({
      status: 'ready',
      frozenTime: (jan2030 + 86_400) * 1000,
      targetFrozenTime: null,
      failedRuns: 0,
      due: { at: clock.deletesAfter, testClock: null },
    });
    expect(runs).toHaveLength(2);
    expect(types().filter((type) => type === 'test_helpers.test_clock.ready')).toHaveLength(1);
  });

  it('Given an advance whose objects will not move on, When it is processed, Then the clock goes internal_failure at its old time with its event, and cannot advance again', async () => {
    const { service, repository, types } = setup(['stuck']);
    const clock = await service.create(originOf(scope), { frozen_time: jan2030 });
    await service.advance(originOf(scope), clock.id, jan2030 + 86_400);

    await service.processDue(scope, clock.id, Date.now());

    expect(await repository.get(scope, clock.id)).toMatchObject({ status: 'internal_failure', frozenTime: jan2030 * 1000, targetFrozenTime: null });
    expect(types()).toContain('test_helpers.test_clock.internal_failure');
    await expect(service.advance(originOf(scope), clock.id, jan2030 + 2 * 86_400)).rejects.toMatchObject({ code: 'test_clock_internal_failure' });
  });

  it('Given an advance whose processors keep failing, When it is processed again and again, Then it stays advancing until the fifth failure, then goes internal_failure', async () => {
    const { service, repository, types } = setup(['throw', 'throw', 'throw', 'throw', 'throw']);
    const clock = await service.create(originOf(scope), { frozen_time: jan2030 });
    await service.advance(originOf(scope), clock.id, jan2030 + 86_400);

    for (let run = 1; run <= 4; run++) {
      await service.processDue(scope, clock.id, Date.now());
      expect(await repository.get(scope, clock.id)).toMatchObject({ status: 'advancing', failedRuns: run });
    }
    await service.processDue(scope, clock.id, Date.now());

    expect(await repository.get(scope, clock.id)).toMatchObject({ status: 'internal_failure', failedRuns: 0, frozenTime: jan2030 * 1000 });
    expect(types().filter((type) => type === 'test_helpers.test_clock.internal_failure')).toHaveLength(1);
  });

  it('Given a clock with customers past deletes_after, When the due engine processes it, Then its customers are deleted, then the clock, with its deleted event', async () => {
    const { service, repository, deleted, types } = setup();
    const clock = await service.create(originOf(scope), { frozen_time: jan2030 });
    const key = [...repository.items.keys()][0]!;
    repository.items.set(key, { ...clock, version: 2, customers: ['cus_a', 'cus_b'] });

    await service.processDue(scope, clock.id, clock.created + testClockLifetimeMillis - 1);
    expect(await repository.get(scope, clock.id)).toBeDefined();
    await service.processDue(scope, clock.id, clock.created + testClockLifetimeMillis);

    expect(deleted).toEqual(['cus_a', 'cus_b']);
    expect(await repository.get(scope, clock.id)).toBeUndefined();
    expect(types()).toContain('test_helpers.test_clock.deleted');
  });

  it('Given a clock that lists a customer who no longer exists, When it is deleted, Then the clock is deleted all the same', async () => {
    const { service, repository, deleted } = setup();
    const clock = await service.create(originOf(scope), { frozen_time: jan2030 });
    const key = [...repository.items.keys()][0]!;
    repository.items.set(key, { ...clock, version: 2, customers: ['cus_gone', 'cus_here'] });

    expect(await service.delete(originOf(scope), clock.id)).toMatchObject({ id: clock.id });

    expect(deleted).toEqual(['cus_here']);
    expect(await repository.get(scope, clock.id)).toBeUndefined();
  });

  it('Given a clock with a monthly subscription, When an advance goes past two months, Then it is refused naming frozen_time', async () => {
    const { service, repository } = setup();
    const clock = await service.create(originOf(scope), { frozen_time: jan2030 });
    const key = [...repository.items.keys()][0]!;
    repository.items.set(key, { ...clock, version: 2, customers: ['cus_a'] });

    await expect(service.advance(originOf(scope), clock.id, Date.UTC(2030, 2, 1) / 1000 + 1)).rejects.toMatchObject({ param: 'frozen_time' });
    expect(await service.advance(originOf(scope), clock.id, Date.UTC(2030, 2, 1) / 1000)).toMatchObject({ status: 'advancing' });
  });

  it('Given an existing customer, When a clock is created with it, Then the customer joins the clock in the same write, and a customer on a clock or with subscriptions is refused', async () => {
    const { service, repository, types } = setup();
    const customer = (id: string, testClock: string | null = null): Customer => ({
      id,
      scope,
      created: 0,
      name: null,
      email: null,
      description: null,
      phone: null,
      address: null,
      shipping: null,
      balance: 0,
      invoicePrefix: 'ABCD1234',
      nextInvoiceSequence: 1,
      preferredLocales: [],
      taxExempt: 'none',
      metadata: {},
      version: 3,
      defaultSource: null,
      sourceCount: 0,
      testClock,
    });
    for (const each of [customer('cus_free'), customer('cus_taken', 'clock_other'), customer('cus_subscribed')]) customers.set(each.id, each);

    const clock = await service.create(originOf(scope), { frozen_time: jan2030, customer: 'cus_free' });

    expect(clock.customers).toEqual(['cus_free']);
    expect(await repository.get(scope, clock.id)).toMatchObject({ customers: ['cus_free'] });
    expect(customers.get('cus_free')).toMatchObject({ testClock: clock.id, version: 4 });
    expect(types()).toEqual(['test_helpers.test_clock.created', 'customer.updated']);
    for (const [id, code] of [
      ['cus_taken', 'parameter_invalid'],
      ['cus_subscribed', 'parameter_invalid'],
      ['cus_missing', 'resource_missing'],
    ] as const) {
      await expect(service.create(originOf(scope), { frozen_time: jan2030, customer: id })).rejects.toMatchObject({ code, param: 'customer' });
    }
  });

  it('Given live mode, When any test clock operation is asked, Then it is refused before anything is read', async () => {
    const { service } = setup();
    const live: Scope = { ...scope, livemode: true };
    await expect(service.create(originOf(live), { frozen_time: jan2030 })).rejects.toMatchObject({ code: 'livemode_mismatch' });
    await expect(service.retrieve(live, 'clock_x')).rejects.toMatchObject({ code: 'livemode_mismatch' });
    await expect(service.list(live, { limit: 10 })).rejects.toMatchObject({ code: 'livemode_mismatch' });
  });

  it('Given a hundred clocks, When another is created, Then it is refused', async () => {
    const { service } = setup();
    for (let n = 0; n < 100; n++) await service.create(originOf(scope), { frozen_time: jan2030 });
    await expect(service.create(originOf(scope), { frozen_time: jan2030 })).rejects.toMatchObject({ code: 'test_clock_limit_reached' });
  });
});

describe('advance limits (pure)', () => {
  it('Given intervals, When the limit is computed, Then it is two of the shortest, calendar-wise, or two years without subscriptions', () => {
    const start = Date.UTC(2030, 0, 31);
    expect(addIntervals(start, { interval: 'month', intervalCount: 1 }, 2)).toBe(Date.UTC(2030, 2, 31));
    expect(addIntervals(start, { interval: 'week', intervalCount: 2 }, 2)).toBe(start + 28 * 86_400_000);
    expect(advanceLimit(start, [])).toBe(Date.UTC(2032, 0, 31));
    expect(
      advanceLimit(start, [
        { interval: 'year', intervalCount: 1 },
        { interval: 'day', intervalCount: 3 },
      ]),
    ).toBe(start + 6 * 86_400_000);
  });
});

describe('billing time', () => {
  const clock: TestClock = {
    id: 'clock_1',
    scope,
    version: 1,
    created: 0,
    deletesAfter: testClockLifetimeMillis,
    frozenTime: jan2030 * 1000,
    name: null,
    status: 'ready',
    targetFrozenTime: null,
    failedRuns: 0,
    customers: ['cus_on'],
    due: { at: testClockLifetimeMillis, testClock: null },
    platformId: scope.accountId,
    apiVersion: '2026-10-28.endive',
  };

  it('Given customers on and off a clock, When their billing time is asked, Then it is the frozen time or the stack clock, and refused while the clock advances', async () => {
    const clocks = memoryOwnedStore<TestClock>(clock);
    const time = billingTime({
      customerClock: async (_scope, customer) => {
        if (customer === 'cus_missing') throw new NotFoundError('customer', customer);
        return customer === 'cus_on' ? 'clock_1' : null;
      },
      clocks,
      clock: () => 1_234,
    });

    expect(await time.forCustomer(scope, 'cus_on')).toEqual({ now: jan2030 * 1000, testClock: 'clock_1' });
    expect(await time.forCustomer(scope, 'cus_off')).toEqual({ now: 1_234, testClock: null });
    await expect(time.forCustomer(scope, 'cus_missing')).rejects.toBeInstanceOf(NotFoundError);
    await clocks.replace({ ...clock, version: 2, status: 'advancing', targetFrozenTime: clock.frozenTime + 1000 });
    await expect(time.forCustomer(scope, 'cus_on')).rejects.toMatchObject({ code: 'test_clock_advancing' });
  });
});
