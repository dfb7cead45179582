import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import type { BillingTime } from '#shared/billing/ports.ts';
import { dynamoPriceRepository, dynamoSubscriptionRepository, subscriptionEntity } from '#shared/data/billing-repositories.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { invoiceEntity, dynamoInvoiceRepository } from '#shared/data/invoice-repository.ts';
import { invoice as invoiceKeys } from '#shared/data/keys.ts';
import { transactChecked } from '#shared/data/transactions.ts';
import { createInvoiceItemParams, createInvoiceParams } from '#shared/invoices/schemas.ts';
import { invoiceService } from '#shared/invoices/service.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';
import { originOf, recordingEmitter } from '../support/fakes.ts';
import { declined, scriptedGateway } from '../support/invoice-fakes.ts';
import { meteredStackTable, newPlatform, sdk, stackTable } from '../support/stack.ts';
import { measured } from '../support/measure.ts';

/** The invoice service on the stack's table (calls counted), a scripted gateway and the stack's clock. */
function meteredService(gateway: ReturnType<typeof scriptedGateway>['gateway']) {
  const table = meteredStackTable();
  const billingTime: BillingTime = { forCustomer: async () => ({ now: Date.now(), testClock: null }) };
  return invoiceService({
    repository: dynamoInvoiceRepository(table),
    customers: dynamoCustomerRepository(table),
    prices: dynamoPriceRepository(table),
    subscriptions: dynamoSubscriptionRepository(table),
    events: recordingEmitter().events,
    billingTime,
    gateway,
  });
}

describe('invoices on DynamoDB Local: what finalizing and paying cost, the due index, and the period seam', () => {
  let client: Stripe;
  let scope: Scope;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    scope = { accountId: platform.account, livemode: false };
  });

  it('Given a draft of two items, finalizing and charging it is two reads and two transactions, and paying a failed one again a claim and its outcome', async () => {
    const customer = await client.customers.create({ name: 'Measured' });
    const { gateway } = scriptedGateway(declined());
    const service = meteredService(gateway);
    const origin = originOf(scope);
    for (const amount of [1200, 800]) await service.createItem(origin, createInvoiceItemParams.parse({ customer: customer.id, amount, currency: 'usd' }));
    const draft = await service.create(origin, createInvoiceParams.parse({ customer: customer.id, pending_invoice_items_behavior: 'include' }));

    // A draft with auto_advance is in the due index (GSI2) at its hour; finalization takes it out.
    const stored = await stackTable().get({ PK: invoiceKeys.pk(scope), SK: invoiceKeys.sk(draft.id) });
    expect(stored).toMatchObject({ GSI2SK: expect.stringContaining(`#invoice#${draft.id}`) });

    const finalize = await measured(() => service.finalize(origin, draft.id, {}));
    expect(finalize.result).toMatchObject({ status: 'open', attemptCount: 1, number: `${customer.invoice_prefix}-0001` });
    // Read the invoice and the customer, write the finalization with the customer; the charge's outcome in a second transaction.
    expect(finalize.calls).toEqual(['GetItem', 'GetItem', 'TransactWriteItems', 'TransactWriteItems']);
    const pay = await measured(() => service.pay(origin, draft.id, {}));
    expect(pay.result).toMatchObject({ status: 'paid', attemptCount: 2, amountPaid: 2000 });
    // Read the invoice, claim the try (so a racing request or sweeper cannot charge it too), write its outcome.
    expect(pay.calls).toEqual(['GetItem', 'PutItem', 'TransactWriteItems']);
    // Printed for docs/billing.md (Invoices: capacity).
    console.info(
      `finalize+charge: ${finalize.calls.length} calls, ${finalize.readUnits} RCU, ${finalize.writeUnits} WCU; pay: ${pay.calls.length} calls, ${pay.readUnits} RCU, ${pay.writeUnits} WCU`,
    );
    // Measured 34 WCU (1 RCU; 38 while events kept their object as a map): the invoice (about 3 KB with two lines, in
    // the due index for its claim) and the customer, written twice over (transactions cost double), and the outbox
    // of 2–4 events each carrying the invoice (deflated).
    expect(finalize.writeUnits).toBeLessThanOrEqual(36);
    // Measured 27 WCU (0.5 RCU; 35 with maps): the claim (a PutItem of the invoice, in the due index for its lease), then the invoice
    // and two events (invoice.paid, invoice.payment_succeeded) with their fan-out record.
    expect(pay.writeUnits).toBeLessThanOrEqual(30);
    const paid = await stackTable().get({ PK: invoiceKeys.pk(scope), SK: invoiceKeys.sk(draft.id) });
    expect(paid?.GSI2PK).toBeUndefined();
  });

  it('Given a subscription, when two renewals of one period write their invoice with the subscription’s versioned replace, then exactly one invoice is made', async () => {
    const customer = await client.customers.create({ name: 'Renewing' });
    const product = await client.products.create({ name: 'Plan' });
    const price = await client.prices.create({ product: product.id, unit_amount: 1500, currency: 'usd', recurring: { interval: 'month' } });
    const made = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    const table = stackTable();
    const subscriptions = dynamoSubscriptionRepository(table);
    const current = (await subscriptions.get(scope, made.id)) as Subscription;
    const service = meteredService(scriptedGateway().gateway);
    const customerRecord = (await dynamoCustomerRepository(table).get(scope, customer.id))!;
    const period = { start: Date.now(), end: Date.now() + 30 * 86_400_000 };
    const line = {
      kind: 'subscription' as const,
      amount: 1500,
      quantity: 1,
      price: null,
      period,
      proration: false,
      subscription: made.id,
      subscriptionItem: null,
      description: null,
    };
    const renew = async () => {
      const { change } = await service.draftForPeriod(
        originOf(scope),
        current,
        customerRecord,
        { now: period.start, testClock: null },
        [line],
        'subscription_cycle',
      );
      const next = { ...current, version: current.version + 1 };
      return transactChecked(table, [...subscriptionEntity.subscriptions.replace(table.name, next), ...invoiceEntity.commit(table.name, change)], undefined);
    };
    const outcomes = await Promise.all([renew(), renew()]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await renew()).toBe(false);
    // The subscription's creation made its first invoice; the two renewals made one more.
    const invoices = (await client.invoices.list({ subscription: made.id })).data.filter((invoice) => invoice.billing_reason === 'subscription_cycle');
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ total: 1500, status: 'draft', billing_reason: 'subscription_cycle' });
  });
});
