import { InvalidRequestError } from '#shared/core/errors.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Outbox } from '#shared/events/event.ts';
import type { BillingDue } from '#shared/billing/ports.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';

/**
 * A test clock (test mode only): the frozen time its customers' billing objects live on. `ready` until an
 * advance starts; `advancing` while the due work of its objects runs up to `targetFrozenTime`; `ready` again
 * at the target, or `internal_failure` when an object's processor did not move its due time forward.
 */
export interface TestClock extends OwnedResource {
  /** Real time of creation (epoch ms). */
  created: number;
  /** When the due engine deletes it (epoch ms): `created` + `testClockLifetimeMillis`. */
  deletesAfter: number;
  /** Epoch ms, whole seconds (the API takes seconds). */
  frozenTime: number;
  name: string | null;
  status: 'ready' | 'advancing' | 'internal_failure';
  /** The time an advance moves it to, while `advancing`; else null. */
  targetFrozenTime: number | null;
  /** Runs of the current advance that threw; at `maxFailedRuns` the clock goes `internal_failure`. */
  failedRuns: number;
  /** Its customers' ids, oldest first (at most `maxCustomersPerClock`); each customer's create and delete rewrites it. */
  customers: string[];
  /**
   * In the stack's billing queue: at the start of an advance while `advancing` (a crashed advance is swept
   * again), else at `deletesAfter` (the sweeper deletes it).
   */
  due: BillingDue;
  /** Who the events of work nobody requested (an advance's end, the automatic deletion) are for. */
  platformId: string;
  apiVersion: string;
}

/** Test clocks in their owner's partition, capped per owner; `delete` only on the version read (a customer added meanwhile moved it). */
export interface TestClockRepository extends Omit<OwnedResourceStore<TestClock>, 'delete'> {
  delete(clock: TestClock, outbox?: Outbox): Promise<boolean>;
  /**
   * Creates `clock` with an existing customer on it, written with its `testClock` on the version before, in
   * one write: `limit` when the owner has its most clocks, `conflict` when the customer changed meanwhile.
   */
  createWithCustomer(clock: TestClock, customer: Customer, limit: number, outbox: Outbox): Promise<'written' | 'limit' | 'conflict'>;
}

/** Customers one test clock has: 3, the reference's limit for customers on a clock as its testing guide states it (docs/billing.md). */
export const maxCustomersPerClock = 3;

/** How the work of an advance came out (`dueRunner().runClock`). */
export type ClockRunOutcome = 'done' | 'stuck' | 'unfinished';

/** Runs the due work on one clock's objects up to `target`, until `deadline` (real epoch ms). */
export type ClockWorkRunner = (scope: Scope, clockId: string, target: number, deadline: number) => Promise<ClockRunOutcome>;

/**
 * The error of a change to a test clock, or to one of its objects, while it advances. The reference refuses
 * these as invalid requests; its code is not documented, so this service names it `test_clock_advancing`.
 */
export const testClockAdvancing = (id: string, param?: string) =>
  new InvalidRequestError(
    `The test clock ${id} is advancing; wait until its status is \`ready\` (the test_helpers.test_clock.ready event) before changing it or its objects.`,
    'test_clock_advancing',
    param,
  );
