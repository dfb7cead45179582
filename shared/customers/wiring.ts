import { serviceTable } from '#shared/data/table.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import { dynamoTokenRepository } from '#shared/data/token-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { withTestTokens } from '#shared/tokens/test-tokens.ts';
import { wireTokenService } from '#shared/tokens/wiring.ts';
import type { CustomerSubscriptions } from './customer.ts';
import { customerService } from './service.ts';

type CustomerService = ReturnType<typeof customerService>;

/** The service with the subscriptions a delete cancels: wireCustomerService, or delete-wiring.ts's. */
export const customerServiceOn = (subscriptions: CustomerSubscriptions) => {
  const tokenMaker = wireTokenService();
  return customerService({
    repository: dynamoCustomerRepository(serviceTable()),
    subscriptions,
    tokens: withTestTokens(dynamoTokenRepository(serviceTable()), (scope, card) => tokenMaker.create(scope, { card }, null)),
    events: wireEventEmitter(),
    clocks: dynamoTestClockRepository(serviceTable()),
  });
};

/**
 * The service on its real adapters, every operation but `delete`; handlers call this once at module scope
 * (cold start). Only a delete cancels subscriptions, so the other functions do not wire (or bundle) the
 * subscription service and the invoices, catalogue and pricing it brings (docs/architecture.md, *Wiring
 * per operation*): the port below is unreachable, as the type leaves `delete` out.
 */
export const wireCustomerService = (): Omit<CustomerService, 'delete'> =>
  customerServiceOn({
    cancelAllOf: () => {
      throw new Error('Deleting a customer needs wireCustomerDeletion() (delete-wiring.ts)');
    },
  });
