import { serviceTable } from '#shared/data/table.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import { dynamoTokenRepository } from '#shared/data/token-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { createTokenParams } from '#shared/tokens/schemas.ts';
import { withTestTokens } from '#shared/tokens/test-tokens.ts';
import { wireTokenService } from '#shared/tokens/wiring.ts';
import { customerService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireCustomerService = () => {
  const tokenMaker = wireTokenService();
  return customerService({
    repository: dynamoCustomerRepository(serviceTable()),
    subscriptions: wireSubscriptionService(),
    tokens: withTestTokens(dynamoTokenRepository(serviceTable()), (scope, card) => tokenMaker.create(scope, createTokenParams.parse({ card }), null)),
    events: wireEventEmitter(),
    clocks: dynamoTestClockRepository(serviceTable()),
  });
};
