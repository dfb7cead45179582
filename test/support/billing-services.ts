import { paymentGateway } from '#shared/billing/payment-gateway.ts';
import type { BillingTime } from '#shared/billing/ports.ts';
import { dynamoPriceRepository, dynamoSubscriptionRepository } from '#shared/data/billing-repositories.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoInvoiceRepository } from '#shared/data/invoice-repository.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import type { Table } from '#shared/data/table.ts';
import { invoiceService } from '#shared/invoices/service.ts';
import { meteredUsage } from '#shared/invoices/usage.ts';
import { minuteUsageReader } from '#shared/meter-events/summaries.ts';
import { subscriptionPayments, subscriptionService } from '#shared/subscriptions/service.ts';
import { prorationInvoicing, subscriptionInvoicing } from '#shared/subscriptions/wiring.ts';
import { recordingEmitter } from './fakes.ts';

/**
 * The subscription and invoice services on `table` (the stack's, calls counted) with the real repositories,
 * invoicing adapters and usage reader, at `time.now`: what the integration tests race and count.
 */
export function realBillingServices(table: Table, time: { now: number }) {
  const billingTime: BillingTime = { forCustomer: async () => ({ now: time.now, testClock: null }) };
  const customers = dynamoCustomerRepository(table);
  const subscriptions = dynamoSubscriptionRepository(table);
  const prices = dynamoPriceRepository(table);
  const usage = meteredUsage({ meters: dynamoMeterRepository(table), reader: minuteUsageReader(dynamoMeterEventStore(table)) });
  const { events } = recordingEmitter();
  const invoices = invoiceService({
    repository: dynamoInvoiceRepository(table),
    customers,
    prices,
    subscriptions,
    events,
    billingTime,
    gateway: paymentGateway({ customers }),
    subscriptionPayments: subscriptionPayments(subscriptions),
    usage,
  });
  const service = subscriptionService({
    subscriptions,
    prices,
    customers,
    events,
    billingTime,
    invoicing: subscriptionInvoicing({ table, invoices, customers, events, usage }),
    prorationInvoicing: prorationInvoicing(table, invoices, usage),
    clock: () => time.now,
  });
  return { service, subscriptions, invoices };
}
