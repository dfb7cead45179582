import { dueMessageOf } from '#shared/billing/due-message.ts';
import type { BillingTime } from '#shared/billing/ports.ts';
import { config } from '#shared/core/config.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import { dynamoSubscriptionRepository } from '#shared/data/billing-repositories.ts';
import { dueOnClock } from '#shared/data/billing-due-index.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { batchedSender } from '#shared/messaging/batched-sender.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';
import type { Scope } from '#shared/platform/types.ts';
import { type BillingInterval, billingTime, testClockService, type TestClockServicePorts } from './service.ts';
import type { ClockWorkRunner } from './test-clock.ts';

export const wireTestClockRepository = () => dynamoTestClockRepository(serviceTable());

/**
 * Now for a customer's billing objects: its test clock's frozen time, else the stack's clock. The billing
 * contract's seam (BILLING.md): the subscription and invoice services take it.
 * @public
 */
export function wireBillingTime(): BillingTime {
  const customers = dynamoCustomerRepository(serviceTable());
  return billingTime({
    customerClock: async (scope, id) => {
      const customer = await customers.get(scope, id);
      if (!customer) throw new NotFoundError('customer', id);
      return customer.testClock;
    },
    clocks: wireTestClockRepository(),
  });
}

/** The intervals of the live subscriptions on a clock (53c: its due partition, one Query), what bounds an advance. */
function subscriptionIntervals() {
  const table = serviceTable();
  return async (scope: Scope, clockId: string): Promise<BillingInterval[]> =>
    (await dueOnClock(table, scope, clockId, 'subscription')).flatMap((item) =>
      (item.items as Array<{ price: { recurring: BillingInterval | null } }>).flatMap((subscriptionItem) => subscriptionItem.price.recurring ?? []),
    );
}

/** Starts due work at once: a sealed pointer on the `billing` queue. */
function billingQueue() {
  const url = config().BILLING_QUEUE_URL;
  if (!url) throw new Error('Invalid configuration: BILLING_QUEUE_URL is required for test clocks');
  const send = batchedSender(url);
  const seal = wireQueueSeal('billing');
  return async (scope: Scope, clockId: string) => send(await seal.seal([dueMessageOf('test_clock', scope, clockId)]));
}

const workRunsInTheBillingWorker: ClockWorkRunner = () => {
  throw new Error("A test clock's due work runs in the billing worker and the sweeper (wireDueProcessors), not in an API function");
};

type TestClockService = ReturnType<typeof testClockService>;

/** The service with the customer deletion its `delete` and `processDue` use: wireTestClockService, or delete-wiring.ts's. */
export const testClockServiceOn = (deleteCustomer: TestClockServicePorts['deleteCustomer'], runWork: ClockWorkRunner = workRunsInTheBillingWorker) => {
  const table = serviceTable();
  const customerRepository = dynamoCustomerRepository(table);
  const subscriptions = dynamoSubscriptionRepository(table);
  return testClockService({
    repository: wireTestClockRepository(),
    customers: {
      get: (scope, id) => customerRepository.get(scope, id),
      hasSubscriptions: async (scope, id) => (await subscriptions.list(scope, { limit: 1 }, { customer: id, endedAt: null })).items.length > 0,
    },
    events: wireEventEmitter(),
    deleteCustomer,
    intervals: subscriptionIntervals(),
    runWork,
    wake: billingQueue(),
  });
};

/**
 * The service on its real adapters for the API functions that neither delete a clock nor run its due work
 * (which deletes a clock whose delete was interrupted): deleting a clock deletes its customers, which
 * cancels their subscriptions, so only wireTestClockDeletion (delete-wiring.ts) bundles the subscription,
 * invoice and pricing code (docs/architecture.md, *Wiring per operation*). An advance's work runs in the
 * billing worker and the sweeper, whose processors (shared/billing/due-processors.ts) pass the due runner.
 */
export const wireTestClockService = (): Omit<TestClockService, 'delete' | 'processDue'> =>
  testClockServiceOn(() => {
    throw new Error('Deleting a test clock needs wireTestClockDeletion() (delete-wiring.ts)');
  });
