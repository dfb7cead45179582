import { serviceTable } from '#shared/data/table.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import { dynamoTokenRepository } from '#shared/data/token-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { customerService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireCustomerService = () =>
  customerService({
    repository: dynamoCustomerRepository(serviceTable()),
    subscriptions: wireSubscriptionService(),
    tokens: dynamoTokenRepository(serviceTable()),
    events: wireEventEmitter(),
    clocks: dynamoTestClockRepository(serviceTable()),
  });
