import { dynamoCatalogueRepository } from '#shared/data/billing-repositories.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoInvoiceRepository } from '#shared/data/invoice-repository.ts';
import {
  dynamoAuthorizationRepository,
  dynamoCardholderRepository,
  dynamoCardRepository,
  dynamoTransactionRepository,
} from '#shared/data/issuing-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import { expansionLoaders } from './loaders.ts';
import { expander } from './resolver.ts';

/** The expander on the real repositories; handlers call this once at module scope and pass it to `httpHandler`. */
export function wireExpander() {
  const table = serviceTable();
  const catalogue = dynamoCatalogueRepository(table);
  return expander(
    expansionLoaders({
      customers: dynamoCustomerRepository(table),
      products: catalogue.products,
      prices: catalogue.prices,
      invoices: dynamoInvoiceRepository(table).invoices,
      cards: dynamoCardRepository(table),
      cardholders: dynamoCardholderRepository(table),
      authorizations: dynamoAuthorizationRepository(table),
      transactions: dynamoTransactionRepository(table),
      testClocks: dynamoTestClockRepository(table),
    }),
  );
}
