import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoPriceRepository, dynamoSubscriptionRepository } from '#shared/data/billing-repositories.ts';
import { serviceTable } from '#shared/data/table.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { subscriptionService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireSubscriptionService = () => {
  const table = serviceTable();
  return subscriptionService({
    subscriptions: dynamoSubscriptionRepository(table),
    prices: dynamoPriceRepository(table),
    customers: dynamoCustomerRepository(table),
    events: wireEventEmitter(),
  });
};
