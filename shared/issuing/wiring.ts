import { serviceTable } from '#shared/data/table.ts';
import {
  dynamoAuthorizationRepository,
  dynamoCardholderRepository,
  dynamoCardRepository,
  dynamoTransactionRepository,
} from '#shared/data/issuing-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { authorizationService } from './authorization-service.ts';
import { cardService } from './card-service.ts';
import { cardholderService } from './cardholder-service.ts';
import { transactionService } from './transaction-service.ts';

/** The services on their real adapters; handlers call these once at module scope (cold start). */
export const wireCardholderService = () => cardholderService({ repository: dynamoCardholderRepository(serviceTable()), events: wireEventEmitter() });

export const wireCardService = () =>
  cardService({ repository: dynamoCardRepository(serviceTable()), cardholders: dynamoCardholderRepository(serviceTable()), events: wireEventEmitter() });

export const wireAuthorizationService = () =>
  authorizationService({
    repository: dynamoAuthorizationRepository(serviceTable()),
    transactions: dynamoTransactionRepository(serviceTable()),
    cards: dynamoCardRepository(serviceTable()),
    cardholders: dynamoCardholderRepository(serviceTable()),
    events: wireEventEmitter(),
  });

export const wireTransactionService = () =>
  transactionService({
    repository: dynamoTransactionRepository(serviceTable()),
    authorizations: dynamoAuthorizationRepository(serviceTable()),
    cards: dynamoCardRepository(serviceTable()),
    events: wireEventEmitter(),
  });
