import { wireCustomerDeletion } from '#shared/customers/delete-wiring.ts';
import type { ClockWorkRunner } from './test-clock.ts';
import { testClockServiceOn } from './wiring.ts';

/**
 * The service with `delete` and `processDue`, which delete a clock's customers through the customer delete
 * path (cancelling their subscriptions): a module of its own, so only the functions that delete clocks or run
 * their due work bundle the subscription service (docs/architecture.md, *Wiring per operation*).
 */
export const wireTestClockDeletion = (runWork?: ClockWorkRunner) => {
  const customers = wireCustomerDeletion();
  return testClockServiceOn((origin, id) => customers.delete(origin, id), runWork);
};
