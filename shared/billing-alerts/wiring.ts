import { serviceTable } from '#shared/data/table.ts';
import { dynamoBillingAlertRepository } from '#shared/data/billing-alert-repository.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { wireUsageRollups } from '#shared/meter-events/wiring.ts';
import { wireMeterRepository } from '#shared/meters/wiring.ts';
import { alertEvaluator } from './evaluator.ts';
import { billingAlertService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export function wireBillingAlertService() {
  const table = serviceTable();
  const customers = dynamoCustomerRepository(table);
  return billingAlertService({
    repository: dynamoBillingAlertRepository(table),
    meters: wireMeterRepository(),
    customerExists: async (scope, id) => (await customers.get(scope, id)) !== undefined,
  });
}

/** The scheduled evaluator on its real adapters. */
export function wireAlertEvaluator() {
  const table = serviceTable();
  return alertEvaluator({ repository: dynamoBillingAlertRepository(table), usage: wireUsageRollups(table).reader, events: wireEventEmitter() });
}
