import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { newId } from '#shared/core/ids.ts';
import { logger } from '#shared/core/logger.ts';
import type { BillingTime, DueProcessor } from '#shared/billing/ports.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import type { Customer } from '#shared/customers/customer.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import type { CreateTestClockParams } from './schemas.ts';
import { serializeTestClock } from './serializer.ts';
import { type ClockRunOutcome, type ClockWorkRunner, type TestClock, type TestClockRepository, testClockAdvancing } from './test-clock.ts';

/** A recurring price's interval, as the advance limit reads it from the clock's subscriptions. */
export interface BillingInterval {
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
}

/** The customers a clock can be created with: an existing one, without a clock or subscriptions. */
export interface ClockCustomers {
  get(scope: Scope, id: string): Promise<Customer | undefined>;
  /** Whether the customer has a subscription not yet canceled. */
  hasSubscriptions(scope: Scope, id: string): Promise<boolean>;
}

export interface TestClockServicePorts {
  repository: TestClockRepository;
  customers: ClockCustomers;
  events: EventEmitter;
  /** Deletes one of the clock's customers through the customer delete path (which cancels its subscriptions). */
  deleteCustomer: (origin: EventOrigin, customerId: string) => Promise<unknown>;
  /** The intervals of the clock's live subscriptions (due for a renewal, trial end or expiry): the advance limit's shortest interval. */
  intervals: (scope: Scope, clockId: string) => Promise<BillingInterval[]>;
  /** Runs the due work on the clock's objects (the due runner). */
  runWork: ClockWorkRunner;
  /** Starts an advance's work at once (a `billing` queue message); the sweeper picks it up if this fails. */
  wake: (scope: Scope, clockId: string) => Promise<void>;
  clock?: () => number;
}

/** Test clocks one account has per mode: the reference caps them without stating a number in its API reference; 100 here. */
export const maxTestClocks = 100;
/** A clock is deleted this long after its creation (the reference's `deletes_after` is `created` + 7 days). */
export const testClockLifetimeMillis = 7 * 24 * 60 * 60 * 1000;
/**
 * How long one run of an advance may work before it leaves the rest to the next run (the sweeper, a
 * minute later): well inside the 30 s the workers and the scheduled jobs have.
 */
export const advanceBudgetMillis = 20_000;
/** Runs of one advance that may fail (a processor threw) before the clock goes `internal_failure`. */
export const maxFailedRuns = 5;

const msPerDay = 24 * 60 * 60 * 1000;

/** `from` moved on by `count` intervals, calendar-wise in UTC (a month from January 31 is March 3, as Date does). */
export function addIntervals(from: number, { interval, intervalCount }: BillingInterval, count: number): number {
  const steps = intervalCount * count;
  if (interval === 'day') return from + steps * msPerDay;
  if (interval === 'week') return from + steps * 7 * msPerDay;
  const date = new Date(from);
  if (interval === 'month') date.setUTCMonth(date.getUTCMonth() + steps);
  else date.setUTCFullYear(date.getUTCFullYear() + steps);
  return date.getTime();
}

/**
 * The latest time a clock at `frozenTime` may advance to: two intervals of its shortest subscription
 * interval, or two years without subscriptions, as the reference documents.
 */
export function advanceLimit(frozenTime: number, intervals: BillingInterval[]): number {
  if (intervals.length === 0) return addIntervals(frozenTime, { interval: 'year', intervalCount: 1 }, 2);
  return Math.min(...intervals.map((interval) => addIntervals(frozenTime, interval, 2)));
}

/** Test helpers simulate time, which only test mode may do, as in the reference. */
function requireTestMode(scope: Scope): void {
  if (scope.livemode) {
    throw new InvalidRequestError(
      'Test clocks are only available in test mode, but this request used a live mode key. Use a test mode secret key (sk_test_…).',
      'livemode_mismatch',
    );
  }
}

const eventOf = (type: string, clock: TestClock) => snapshotInput(type, serializeTestClock(clock), `/v1/test_helpers/test_clocks/${clock.id}`);

/** The origin of events nobody requested (an advance's end, the automatic deletion): the clock's account. */
const originOf = (clock: TestClock): EventOrigin => ({ scope: clock.scope, platformId: clock.platformId, request: null, apiVersion: clock.apiVersion });

/** v1 test clocks: create, retrieve, list, delete, advance, and the due work of an advance and of the automatic deletion. */
export function testClockService({ repository, customers, events, deleteCustomer, intervals, runWork, wake, clock = systemClock }: TestClockServicePorts) {
  async function existing(scope: Scope, id: string): Promise<TestClock> {
    requireTestMode(scope);
    const found = await repository.get(scope, id);
    if (!found) throw new NotFoundError('test clock', id);
    return found;
  }

  /**
   * Deletes the clock's customers (each through the customer delete path, which cancels its subscriptions
   * and takes it off the clock), then the clock on the version read after them: a customer added meanwhile
   * moved that version, so the delete starts over and deletes it too.
   */
  function remove(origin: EventOrigin, id: string): Promise<TestClock> {
    return withOptimisticRetries(async () => {
      let current = await existing(origin.scope, id);
      if (current.status === 'advancing') throw testClockAdvancing(id);
      if (current.customers.length > 0) {
        // Customers already gone (listed without existing: never written so, but never a reason to stay).
        const gone = new Set<string>();
        for (const customer of current.customers) {
          await deleteCustomer(origin, customer).catch((error: unknown) => {
            if (!(error instanceof NotFoundError)) throw error;
            gone.add(customer);
          });
        }
        current = await existing(origin.scope, id);
        if (current.customers.some((customer) => !gone.has(customer))) return undefined;
      }
      const outbox = events.prepare(origin, [eventOf('test_helpers.test_clock.deleted', current)]);
      if (!(await repository.delete(current, outbox))) return undefined;
      await events.dispatch(outbox);
      return current;
    });
  }

  /**
   * The end of an advance: runs the due work of the clock's objects up to the target (from the start, or
   * from wherever a crashed run stopped: a processor does nothing twice), then writes the clock `ready` at
   * the target with `test_helpers.test_clock.ready`, or `internal_failure` with its event when an object
   * would not move on. Out of time, it leaves the clock advancing and due: the next sweep goes on.
   */
  async function finishAdvance(started: TestClock): Promise<void> {
    const target = started.targetFrozenTime!;
    let outcome: ClockRunOutcome;
    try {
      outcome = await runWork(started.scope, started.id, target, clock() + advanceBudgetMillis);
    } catch (error) {
      return failedRun(started, error);
    }
    if (outcome === 'unfinished') return;
    if (outcome === 'stuck') logger.error('A test clock advance stopped: an object was still due after its processor ran', { clock: started.id });
    await end(started, target, outcome);
  }

  /**
   * A run that threw (a processor failed): counted on the clock, which stays advancing and due, so the next
   * sweep tries again; after `maxFailedRuns` the clock goes `internal_failure` instead of retrying for ever.
   */
  async function failedRun(started: TestClock, error: unknown): Promise<void> {
    logger.error('A test clock advance failed; the next sweep tries again', { clock: started.id, error: error as Error });
    const target = started.targetFrozenTime!;
    if (started.failedRuns + 1 >= maxFailedRuns) return end(started, target, 'stuck');
    await withOptimisticRetries(async () => {
      const current = await repository.get(started.scope, started.id);
      if (current?.status !== 'advancing' || current.targetFrozenTime !== target) return true;
      return (await repository.replace({ ...current, version: current.version + 1, failedRuns: current.failedRuns + 1 })) || undefined;
    });
  }

  /** Writes the end of an advance once: `ready` at the target, or `internal_failure` where it was, with its event. */
  async function end(started: TestClock, target: number, outcome: 'done' | 'stuck'): Promise<void> {
    await withOptimisticRetries(async () => {
      const current = await repository.get(started.scope, started.id);
      // Another run finished it first (or it was deleted): nothing left to do.
      if (current?.status !== 'advancing' || current.targetFrozenTime !== target) return true;
      const next: TestClock = {
        ...current,
        version: current.version + 1,
        status: outcome === 'done' ? 'ready' : 'internal_failure',
        frozenTime: outcome === 'done' ? target : current.frozenTime,
        targetFrozenTime: null,
        failedRuns: 0,
        due: { at: current.deletesAfter, testClock: null },
      };
      const type = outcome === 'done' ? 'test_helpers.test_clock.ready' : 'test_helpers.test_clock.internal_failure';
      const outbox = events.prepare(originOf(current), [eventOf(type, next)]);
      if (!(await repository.replace(next, outbox))) return undefined;
      await events.dispatch(outbox);
      return true;
    });
  }

  /** One try of a create: undefined when the customer it attaches changed meanwhile (read again). */
  async function createOnce(origin: EventOrigin, params: CreateTestClockParams): Promise<TestClock | undefined> {
    const now = clock();
    const deletesAfter = now + testClockLifetimeMillis;
    const created: TestClock = {
      id: newId('clock', now),
      scope: origin.scope,
      version: 1,
      created: now,
      deletesAfter,
      frozenTime: params.frozen_time * 1000,
      name: params.name ?? null,
      status: 'ready',
      targetFrozenTime: null,
      failedRuns: 0,
      customers: [],
      due: { at: deletesAfter, testClock: null },
      platformId: origin.platformId,
      apiVersion: origin.apiVersion,
    };
    const full = () =>
      new InvalidRequestError(
        `This account already has ${maxTestClocks} test clocks in test mode, the most it may have; delete one before creating another.`,
        'test_clock_limit_reached',
      );
    if (params.customer === undefined) {
      const outbox = events.prepare(origin, [eventOf('test_helpers.test_clock.created', created)]);
      if (!(await repository.create(created, { limit: maxTestClocks, outbox }))) throw full();
      await events.dispatch(outbox);
      return created;
    }
    const [customer, subscribed] = await Promise.all([customers.get(origin.scope, params.customer), customers.hasSubscriptions(origin.scope, params.customer)]);
    if (!customer) throw new InvalidRequestError(`No such customer: '${params.customer}'`, 'resource_missing', 'customer');
    if (customer.testClock !== null) {
      throw new InvalidRequestError(
        `The customer ${customer.id} is already on the test clock ${customer.testClock}; a customer's test clock cannot change.`,
        'parameter_invalid',
        'customer',
      );
    }
    if (subscribed) {
      throw new InvalidRequestError(
        `The customer ${customer.id} has subscriptions; only a customer without subscriptions can be attached to a test clock (create the subscriptions after).`,
        'parameter_invalid',
        'customer',
      );
    }
    const onClock: TestClock = { ...created, customers: [customer.id] };
    const joined: Customer = { ...customer, testClock: onClock.id, version: customer.version + 1 };
    const outbox = events.prepare(origin, [
      eventOf('test_helpers.test_clock.created', onClock),
      snapshotInput('customer.updated', serializeCustomer(joined), `/v1/customers/${joined.id}`, serializeCustomer(customer)),
    ]);
    const outcome = await repository.createWithCustomer(onClock, joined, maxTestClocks, outbox);
    if (outcome === 'limit') throw full();
    if (outcome === 'conflict') return undefined;
    await events.dispatch(outbox);
    return onClock;
  }

  /**
   * The clock's due work (`DueProcessor` of kind `test_clock`): an advance under way is run to its end; a
   * clock past `deletes_after` (and not advancing) is deleted with its customers. Anything else: nothing due.
   */
  const processDue: DueProcessor = async (scope, id, at) => {
    const current = await repository.get(scope, id);
    if (!current) return;
    if (current.status === 'advancing') await finishAdvance(current);
    else if (current.deletesAfter <= at)
      await remove(originOf(current), id).catch((error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
      });
  };

  return {
    processDue,

    /** A clock at `frozen_time`; with `customer`, an existing customer (without a clock or subscriptions) on it, in the same write. */
    async create(origin: EventOrigin, params: CreateTestClockParams): Promise<TestClock> {
      requireTestMode(origin.scope);
      return withOptimisticRetries(() => createOnce(origin, params));
    },

    retrieve: existing,

    async list(scope: Scope, page: PageRequest): Promise<Page<TestClock>> {
      requireTestMode(scope);
      return repository.list(scope, page);
    },

    /** Deletes the clock and its customers (whose subscriptions are canceled); refused while it advances. */
    delete: (origin: EventOrigin, id: string) => remove(origin, id),

    /**
     * Starts an advance: the clock becomes `advancing` (due at once in the stack's billing queue, so a lost
     * message or a crash is picked up by the sweeper) with `test_helpers.test_clock.advancing`, and a
     * message starts the work at once. The answer is the advancing clock, as in the reference.
     */
    async advance(origin: EventOrigin, id: string, frozenTimeSeconds: number): Promise<TestClock> {
      const target = frozenTimeSeconds * 1000;
      const next = await withOptimisticRetries(async () => {
        const current = await existing(origin.scope, id);
        if (current.status === 'advancing') throw testClockAdvancing(id);
        if (current.status === 'internal_failure') {
          throw new InvalidRequestError(
            `The test clock ${id} failed while advancing (status internal_failure) and cannot advance again; delete it and start a new one.`,
            'test_clock_internal_failure',
          );
        }
        if (target <= current.frozenTime) {
          throw new InvalidRequestError(
            `The frozen_time ${frozenTimeSeconds} must be after the test clock's current frozen_time (${current.frozenTime / 1000}): a test clock only moves forward.`,
            'parameter_invalid',
            'frozen_time',
          );
        }
        const limit = advanceLimit(current.frozenTime, current.customers.length > 0 ? await intervals(origin.scope, current.id) : []);
        if (target > limit) {
          throw new InvalidRequestError(
            `The frozen_time ${frozenTimeSeconds} is too far ahead: a test clock advances at most two intervals of the shortest subscription on it (two years without subscriptions) at a time, here up to ${Math.floor(limit / 1000)}. Advance in steps.`,
            'parameter_invalid',
            'frozen_time',
          );
        }
        const advancing: TestClock = {
          ...current,
          version: current.version + 1,
          status: 'advancing',
          targetFrozenTime: target,
          failedRuns: 0,
          due: { at: clock(), testClock: null },
          platformId: origin.platformId,
          apiVersion: origin.apiVersion,
        };
        const outbox = events.prepare(origin, [eventOf('test_helpers.test_clock.advancing', advancing)]);
        if (!(await repository.replace(advancing, outbox))) return undefined;
        await events.dispatch(outbox);
        return advancing;
      });
      await wake(origin.scope, id).catch((error: unknown) =>
        logger.warn('The billing message of a test clock advance was not sent; the sweeper starts it', { clock: id, error: error as Error }),
      );
      return next;
    },
  };
}

/**
 * Billing time: a customer on a test clock lives at the clock's frozen time, any other at the stack's
 * clock. Refused (`test_clock_advancing`) while the clock advances, as the reference refuses changes then.
 */
export function billingTime({
  customerClock,
  clocks,
  clock = systemClock,
}: {
  /** The customer's test clock id (null: none); throws for a missing customer. */
  customerClock: (scope: Scope, customer: string) => Promise<string | null>;
  clocks: Pick<TestClockRepository, 'get'>;
  clock?: () => number;
}): BillingTime {
  return {
    async forCustomer(scope, customer) {
      const testClock = await customerClock(scope, customer);
      if (testClock === null) return { now: clock(), testClock: null };
      const found = await clocks.get(scope, testClock);
      if (!found) throw new NotFoundError('test clock', testClock);
      if (found.status === 'advancing') throw testClockAdvancing(testClock);
      return { now: found.frozenTime, testClock };
    },
  };
}
