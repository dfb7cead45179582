import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { dynamoThresholdIndex } from '#shared/data/billing-repositories.ts';
import type { Scope } from '#shared/platform/types.ts';
import { createSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { originOf } from '../support/fakes.ts';
import { realBillingServices } from '../support/billing-services.ts';
import { measured } from '../support/measure.ts';
import { meteredStackTable, newPlatform, sdk } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

describe('billing thresholds on DynamoDB Local: exactly one threshold invoice under racing evaluators, and what an evaluation costs', () => {
  let client: Stripe;
  let scope: Scope;
  let price: Stripe.Price;
  let meter: Stripe.Billing.Meter;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    scope = { accountId: platform.account, livemode: false };
    meter = await client.billing.meters.create({ display_name: 'Calls', event_name: 'threshold_cost_calls', default_aggregation: { formula: 'sum' } });
    const product = await client.products.create({ name: 'Usage' });
    price = await client.prices.create({
      product: product.id,
      unit_amount: 50,
      currency: 'usd',
      recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
    });
  });

  it('Given amount_gte 1000 and usage of 25 at 50, when six evaluators race, then one subscription_threshold invoice bills the 25 and the period-end renewal bills only what came after', async () => {
    const customer = await client.customers.create({ name: 'Threshold race', source: 'tok_visa' });
    const table = meteredStackTable();
    const time = { now: Date.now() - 300_000 };
    const { service, subscriptions } = realBillingServices(table, time);
    const made = await service.create(
      { origin: originOf(scope) },
      createSubscriptionParams.parse({ customer: customer.id, items: [{ price: price.id }], billing_thresholds: { amount_gte: 1000 } }),
    );
    const report = (value: number, identifier: string, timestamp: number) =>
      client.billing.meterEvents.create({
        event_name: 'threshold_cost_calls',
        payload: { service_customer_id: customer.id, value: String(value) },
        identifier,
        timestamp,
      });
    const minute = (ms: number) => Math.floor(ms / 60_000) * 60;
    const usageBecomes = (wanted: number) =>
      eventually(async () => {
        const summaries = await client.billing.meters.listEventSummaries(meter.id, {
          customer: customer.id,
          start_time: minute(made.currentPeriodStart),
          end_time: minute(Date.now()) + 600,
        });
        return summaries.data[0]?.aggregated_value === wanted ? true : undefined;
      });

    // Given it in the sparse index, read as the evaluator reads it
    const indexed = await eventually(async () => {
      for await (const page of dynamoThresholdIndex(table).withThresholds()) {
        const found = page.find((subscription) => subscription.id === made.id);
        if (found) return found;
      }
      return undefined;
    });

    // When it is evaluated below its threshold (usage of 19, 950), it costs the meter's read and one usage Query, and no write
    await report(19, 'threshold-1', Math.floor(Date.now() / 1000) - 240);
    await usageBecomes(19);
    time.now = Date.now();
    const below = await measured(() => service.evaluateThresholds(indexed, time.now));
    expect(below.result).toBe('below');
    expect(below.calls).toEqual(['GetItem', 'Query']);
    expect(below.writeUnits).toBe(0);
    console.info(`threshold evaluation below: ${below.calls.join(', ')}; ${below.readUnits} RCU, ${below.writeUnits} WCU`);

    // And when usage reaches 25 (1,250) and six evaluators race on what they read
    await report(6, 'threshold-2', Math.floor(Date.now() / 1000) - 240);
    await usageBecomes(25);
    time.now = Date.now();
    const racing = await measured(() =>
      Promise.all(Array.from({ length: 6 }, () => realBillingServices(table, time).service.evaluateThresholds(indexed, time.now))),
    );
    console.info(
      `six racing threshold evaluations (${racing.result.join(', ')}): ${racing.calls.join(', ')}; ${racing.readUnits} RCU, ${racing.writeUnits} WCU`,
    );

    // Then one of them invoiced (the stack's own evaluator may have been first: then none here did) and there is one threshold invoice
    expect(racing.result.filter((outcome) => outcome === 'invoiced').length).toBeLessThanOrEqual(1);
    const thresholdInvoices = (await client.invoices.list({ subscription: made.id })).data.filter(
      (invoice) => invoice.billing_reason === 'subscription_threshold',
    );
    expect(thresholdInvoices).toHaveLength(1);
    const [threshold] = thresholdInvoices;
    expect(threshold).toMatchObject({ status: 'draft', total: 1250 });
    const after = (await subscriptions.get(scope, made.id))!;
    expect(after).toMatchObject({ latestInvoice: threshold!.id, usageBilledUntil: threshold!.lines.data[0]!.period.end * 1000 });

    // And usage after the threshold's minute is billed by the renewal alone
    await report(4, 'threshold-3', Math.floor(Date.now() / 1000) + 120);
    await usageBecomes(29);
    await service.processDue(scope, made.id, made.currentPeriodEnd - 1);
    time.now = made.currentPeriodEnd;
    await service.processDue(scope, made.id, made.currentPeriodEnd);
    const invoices = (await client.invoices.list({ subscription: made.id })).data;
    expect(invoices.filter((invoice) => invoice.billing_reason === 'subscription_threshold')).toHaveLength(1);
    const cycle = invoices.find((invoice) => invoice.billing_reason === 'subscription_cycle')!;
    expect(cycle.lines.data.map((line) => [line.quantity, line.amount, line.period.start])).toEqual([[4, 200, threshold!.lines.data[0]!.period.end]]);
  });
});
