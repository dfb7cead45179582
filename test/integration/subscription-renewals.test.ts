import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import type { Scope } from '#shared/platform/types.ts';
import { createSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { originOf } from '../support/fakes.ts';
import { realBillingServices } from '../support/billing-services.ts';
import { meteredStackTable, newPlatform, sdk } from '../support/stack.ts';
import { measured } from '../support/measure.ts';

describe('subscription renewals on DynamoDB Local: exactly once per period, and what a creation and a renewal cost', () => {
  let client: Stripe;
  let scope: Scope;
  let price: Stripe.Price;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    scope = { accountId: platform.account, livemode: false };
    const product = await client.products.create({ name: 'Plan' });
    price = await client.prices.create({ product: product.id, unit_amount: 1500, currency: 'usd', recurring: { interval: 'month' } });
  });

  it('Given a subscription paid on creation, when two due processors race at its period end, then exactly one renewal invoice is made and the period moves once', async () => {
    const customer = await client.customers.create({ name: 'Racing', source: 'tok_visa' });
    const time = { now: Date.now() };
    const { service, subscriptions } = realBillingServices(meteredStackTable(), time);

    const creation = await measured(() =>
      service.create({ origin: originOf(scope) }, createSubscriptionParams.parse({ customer: customer.id, items: [{ price: price.id }] })),
    );
    const made = creation.result;
    expect(made).toMatchObject({ status: 'active', latestInvoice: expect.stringMatching(/^in_/) });
    // Printed for docs/capacity.md: the customer, the price, the pending items' Query, the card's two reads, one transaction.
    console.info(`subscription creation (charged): ${creation.calls.join(', ')}; ${creation.readUnits} RCU, ${creation.writeUnits} WCU`);

    // The week-before notice first, so the measured run is the renewal alone.
    await service.processDue(scope, made.id, made.currentPeriodEnd - 1);
    const noticed = (await subscriptions.get(scope, made.id))!;
    expect(noticed.notices.upcoming).toBe(made.currentPeriodEnd);

    time.now = made.currentPeriodEnd;
    await Promise.all([
      service.processDue(scope, made.id, made.currentPeriodEnd),
      realBillingServices(meteredStackTable(), time).service.processDue(scope, made.id, made.currentPeriodEnd),
    ]);
    // A third, late run finds nothing due.
    await service.processDue(scope, made.id, made.currentPeriodEnd);

    const renewed = (await subscriptions.get(scope, made.id))!;
    expect(renewed.currentPeriodStart).toBe(made.currentPeriodEnd);
    expect(renewed.currentPeriodEnd).toBeGreaterThan(made.currentPeriodEnd);
    expect(renewed.version).toBe(noticed.version + 1);
    const invoices = await client.invoices.list({ subscription: made.id });
    expect(invoices.data.map((invoice) => invoice.billing_reason).sort()).toEqual(['subscription_create', 'subscription_cycle']);
    const cycle = invoices.data.find((invoice) => invoice.billing_reason === 'subscription_cycle')!;
    expect(cycle).toMatchObject({ id: renewed.latestInvoice, status: 'draft', total: 1500, auto_advance: true });
    expect(cycle.lines.data[0]).toMatchObject({
      period: { start: Math.floor(made.currentPeriodEnd / 1000), end: Math.floor(renewed.currentPeriodEnd / 1000) },
    });
  });

  it('Given a renewal invoice, when its hour passes and the card declines, then the invoice and the subscription move together: past_due, and active once it is paid', async () => {
    const customer = await client.customers.create({ name: 'Declining', source: 'tok_visa' });
    const time = { now: Date.now() };
    const table = meteredStackTable();
    const { service, subscriptions, invoices } = realBillingServices(table, time);
    const made = await service.create({ origin: originOf(scope) }, createSubscriptionParams.parse({ customer: customer.id, items: [{ price: price.id }] }));
    await client.customers.update(customer.id, { source: 'tok_chargeCustomerFail' });
    const notice = await measured(() => service.processDue(scope, made.id, made.currentPeriodEnd - 1));
    console.info(`invoice.upcoming: ${notice.calls.join(', ')}; ${notice.readUnits} RCU, ${notice.writeUnits} WCU`);
    time.now = made.currentPeriodEnd;
    const renewing = await measured(() => service.processDue(scope, made.id, made.currentPeriodEnd));
    // Read the subscription, its customer and pending items; one transaction (subscription, draft, events); read it again: nothing more is due.
    expect(renewing.calls).toEqual(['GetItem', 'GetItem', 'Query', 'TransactWriteItems', 'GetItem']);
    console.info(`renewal: ${renewing.calls.join(', ')}; ${renewing.readUnits} RCU, ${renewing.writeUnits} WCU`);
    const renewal = (await subscriptions.get(scope, made.id))!.latestInvoice!;

    const finalize = await measured(() => invoices.processDue(scope, renewal, made.currentPeriodEnd + 3_600_000));
    console.info(
      `renewal invoice finalize+charge (declined, subscription past_due): ${finalize.calls.join(', ')}; ${finalize.readUnits} RCU, ${finalize.writeUnits} WCU`,
    );
    expect(await client.invoices.retrieve(renewal)).toMatchObject({ status: 'open', attempt_count: 1, next_payment_attempt: expect.any(Number) });
    expect((await subscriptions.get(scope, made.id))!.status).toBe('past_due');

    await client.customers.update(customer.id, { source: 'tok_visa' });
    expect(await client.invoices.pay(renewal)).toMatchObject({ status: 'paid' });
    expect(await client.subscriptions.retrieve(made.id)).toMatchObject({ status: 'active' });
  });

  it('Given an incomplete subscription, when its 23 hours pass, then it expires and its open first invoice is voided in the same write', async () => {
    const customer = await client.customers.create({ name: 'Expiring', source: 'tok_chargeCustomerFail' });
    const time = { now: Date.now() };
    const { service, subscriptions } = realBillingServices(meteredStackTable(), time);
    const made = await service.create({ origin: originOf(scope) }, createSubscriptionParams.parse({ customer: customer.id, items: [{ price: price.id }] }));
    expect(made).toMatchObject({ status: 'incomplete', due: { at: made.created + 23 * 3_600_000 } });
    time.now = made.due.at!;
    await service.processDue(scope, made.id, made.due.at!);
    expect((await subscriptions.get(scope, made.id))!).toMatchObject({ status: 'incomplete_expired', endedAt: made.due.at });
    expect(await client.invoices.retrieve(made.latestInvoice!)).toMatchObject({
      status: 'void',
      status_transitions: { voided_at: Math.floor(made.due.at! / 1000) },
    });
  });
});
