import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import type { Scope } from '#shared/platform/types.ts';
import { createSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { originOf } from '../support/fakes.ts';
import { realBillingServices } from '../support/billing-services.ts';
import { measured } from '../support/measure.ts';
import { meteredStackTable, newPlatform, sdk } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

describe('usage invoicing on DynamoDB Local: what a metered renewal and its finalization cost', () => {
  let client: Stripe;
  let scope: Scope;
  let price: Stripe.Price;
  let meter: Stripe.Billing.Meter;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    scope = { accountId: platform.account, livemode: false };
    meter = await client.billing.meters.create({ display_name: 'Calls', event_name: 'cost_calls', default_aggregation: { formula: 'sum' } });
    const product = await client.products.create({ name: 'Usage' });
    price = await client.prices.create({
      product: product.id,
      unit_amount: 50,
      currency: 'usd',
      recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
    });
  });

  it('Given a metered subscription with usage of 7, when it renews and its draft finalizes, then each reads the meter and one Query of its minutes, and bills 7 at 350', async () => {
    const customer = await client.customers.create({ name: 'Metered cost', source: 'tok_visa' });
    const time = { now: Date.now() - 120_000 };
    const { service, subscriptions, invoices } = realBillingServices(meteredStackTable(), time);
    const made = await service.create({ origin: originOf(scope) }, createSubscriptionParams.parse({ customer: customer.id, items: [{ price: price.id }] }));
    for (const [value, identifier] of [
      ['3', 'cost-1'],
      ['4', 'cost-2'],
    ] as const)
      await client.billing.meterEvents.create({
        event_name: 'cost_calls',
        payload: { service_customer_id: customer.id, value },
        identifier,
        timestamp: Math.floor(Date.now() / 1000) - 5,
      });
    const minute = (ms: number) => Math.floor(ms / 60_000) * 60;
    await eventually(async () => {
      const summaries = await client.billing.meters.listEventSummaries(meter.id, {
        customer: customer.id,
        start_time: minute(made.currentPeriodStart),
        end_time: minute(Date.now()) + 60,
      });
      return summaries.data[0]?.aggregated_value === 7 ? true : undefined;
    });

    await service.processDue(scope, made.id, made.currentPeriodEnd - 1);
    time.now = made.currentPeriodEnd;
    const renewing = await measured(() => service.processDue(scope, made.id, made.currentPeriodEnd));
    // The subscription, its customer, the meter and the period's usage Query, the pending items' Query; one transaction; the subscription again.
    expect(renewing.calls).toEqual(['GetItem', 'GetItem', 'GetItem', 'Query', 'Query', 'TransactWriteItems', 'GetItem']);
    console.info(`metered renewal: ${renewing.calls.join(', ')}; ${renewing.readUnits} RCU, ${renewing.writeUnits} WCU`);
    const renewal = (await subscriptions.get(scope, made.id))!.latestInvoice!;

    const finalize = await measured(() => invoices.processDue(scope, renewal, made.currentPeriodEnd + 3_600_000));
    console.info(`metered renewal finalize+charge: ${finalize.calls.join(', ')}; ${finalize.readUnits} RCU, ${finalize.writeUnits} WCU`);
    const invoice = await client.invoices.retrieve(renewal);
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: 350 });
    expect(invoice.lines.data.map((line) => [line.quantity, line.amount])).toEqual([[7, 350]]);
  });
});
