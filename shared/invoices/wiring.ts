import { wirePaymentGateway } from '#shared/billing/wiring.ts';
import type { DueProcessor } from '#shared/billing/ports.ts';
import { dynamoPriceRepository, dynamoSubscriptionRepository } from '#shared/data/billing-repositories.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoInvoiceRepository } from '#shared/data/invoice-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { subscriptionPayments } from '#shared/subscriptions/service.ts';
import { wireBillingTime } from '#shared/test-clocks/wiring.ts';
import { wireUsageRollups } from '#shared/meter-events/wiring.ts';
import { wireMeterRepository } from '#shared/meters/wiring.ts';
import { invoiceService } from './service.ts';
import { meteredUsage } from './usage.ts';

/**
 * The usage metered lines bill: the meter (cached, for its formula) and the usage reader over the meter's
 * summaries (one line to swap for another `UsageReader`).
 */
export const wireMeteredUsage = () => meteredUsage({ meters: wireMeterRepository(), reader: wireUsageRollups().reader });

/** The invoice service on its real adapters; handlers call this once at module scope (cold start). */
export const wireInvoiceService = () => {
  const table = serviceTable();
  const subscriptions = dynamoSubscriptionRepository(table);
  return invoiceService({
    repository: dynamoInvoiceRepository(table),
    customers: dynamoCustomerRepository(table),
    prices: dynamoPriceRepository(table),
    subscriptions,
    events: wireEventEmitter(),
    billingTime: wireBillingTime(),
    gateway: wirePaymentGateway(),
    subscriptionPayments: subscriptionPayments(subscriptions),
    usage: wireMeteredUsage(),
  });
};

/**
 * The `invoice` due processor for the runner (shared/billing/due-processors.ts): its events have no
 * request and go to the platform of the request that made the invoice.
 */
export function wireInvoiceDueProcessor(): DueProcessor {
  const service = wireInvoiceService();
  return (scope, id, at) => service.processDue(scope, id, at);
}
