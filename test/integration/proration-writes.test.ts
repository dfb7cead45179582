import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import type { BillingTime } from '#shared/billing/ports.ts';
import { dynamoPriceRepository, dynamoSubscriptionRepository } from '#shared/data/billing-repositories.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoInvoiceRepository } from '#shared/data/invoice-repository.ts';
import { invoiceService } from '#shared/invoices/service.ts';
import type { Scope } from '#shared/platform/types.ts';
import { updateSubscriptionItemParams } from '#shared/subscriptions/schemas.ts';
import { subscriptionService } from '#shared/subscriptions/service.ts';
import { prorationInvoicing, subscriptionInvoicing } from '#shared/subscriptions/wiring.ts';
import { originOf, recordingEmitter } from '../support/fakes.ts';
import { scriptedGateway } from '../support/invoice-fakes.ts';
import { meteredStackTable, newPlatform, sdk } from '../support/stack.ts';
import { measured } from '../support/measure.ts';

/** The subscription service on the stack's table (calls counted), charges that succeed, the stack's clock. */
function meteredService() {
  const table = meteredStackTable();
  const customers = dynamoCustomerRepository(table);
  const subscriptions = dynamoSubscriptionRepository(table);
  const prices = dynamoPriceRepository(table);
  const { events } = recordingEmitter();
  const billingTime: BillingTime = { forCustomer: async () => ({ now: Date.now(), testClock: null }) };
  const invoices = invoiceService({
    repository: dynamoInvoiceRepository(table),
    customers,
    prices,
    subscriptions,
    events,
    billingTime,
    gateway: scriptedGateway().gateway,
  });
  return subscriptionService({
    subscriptions,
    prices,
    customers,
    events,
    billingTime,
    invoicing: subscriptionInvoicing({ table, invoices, customers, events, usage: { quantity: async () => 0 } }),
    prorationInvoicing: prorationInvoicing(table, invoices, { quantity: async () => 0 }),
  });
}

describe('prorations on DynamoDB Local: what a prorated change costs', () => {
  let client: Stripe;
  let scope: Scope;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    scope = { accountId: platform.account, livemode: false };
  });

  it('Given a subscription item, when its quantity changes with prorations, then the change, its two proration items and their events are one transaction after the item’s two reads and its product’s; always_invoice adds the invoice’s reads and writes', async () => {
    const customer = await client.customers.create({ name: 'Measured', source: 'tok_visa' });
    const product = await client.products.create({ name: 'Seats' });
    const price = await client.prices.create({ product: product.id, unit_amount: 3100, currency: 'usd', recurring: { interval: 'month' } });
    const made = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id, quantity: 2 }] });
    const itemId = made.items.data[0]!.id;
    const service = meteredService();
    const request = { origin: originOf(scope) };

    const none = await measured(() => service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '3', proration_behavior: 'none' })));
    // The item's pointer and its subscription, then the versioned write.
    expect(none.calls).toEqual(['GetItem', 'GetItem', 'TransactWriteItems']);
    const prorated = await measured(() => service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '4' })));
    // The same, and the product's name for the lines' descriptions.
    expect(prorated.calls).toEqual(['GetItem', 'GetItem', 'GetItem', 'TransactWriteItems']);
    const invoiced = await measured(() =>
      service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ quantity: '5', proration_behavior: 'always_invoice' })),
    );
    // The change as above; then the customer and its pending items, the draft taking them; the draft and the customer again, finalized; the charge's outcome.
    expect(invoiced.calls).toEqual([
      'GetItem',
      'GetItem',
      'GetItem',
      'TransactWriteItems',
      'GetItem',
      'Query',
      'TransactWriteItems',
      'GetItem',
      'GetItem',
      'TransactWriteItems',
      'TransactWriteItems',
    ]);
    // Printed for docs/billing.md (Prorations: capacity).
    console.info(
      `none: ${none.writeUnits} WCU; create_prorations: ${prorated.calls.length} calls, ${prorated.readUnits} RCU, ${prorated.writeUnits} WCU; always_invoice: ${invoiced.calls.length} calls, ${invoiced.readUnits} RCU, ${invoiced.writeUnits} WCU`,
    );
    // Measured 20 WCU without prorations, 41 with: the two invoice items (written in the transaction, so doubled) and their two invoiceitem.created events.
    expect(prorated.writeUnits - none.writeUnits).toBeLessThanOrEqual(24);
    // Measured 171–177 WCU: the change (41), the draft taking four pending items with the subscription's latest_invoice (each item
    // rewritten, invoice.created and four invoiceitem.updated), its finalization with the customer and its charge's outcome
    // (each event carrying the invoice).
    expect(invoiced.writeUnits).toBeLessThanOrEqual(190);
  });
});
