import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { paymentGateway } from '#shared/billing/payment-gateway.ts';
import { dynamoSubscriptionRepository } from '#shared/data/billing-repositories.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import type { Scope } from '#shared/platform/types.ts';
import { meteredStackTable, newPlatform, sdk } from '../support/stack.ts';
import { measured } from '../support/measure.ts';

/**
 * What a charge and a subscription item's reads and writes cost on DynamoDB, as DynamoDB Local reports it
 * (docs/billing.md and TABLE_DESIGN.md 33c state the same figures; the outbox of a write is counted apart).
 */
describe('payments and subscription items: DynamoDB calls and capacity units', () => {
  const table = meteredStackTable();
  const subscriptions = dynamoSubscriptionRepository(table);
  const gateway = paymentGateway({ customers: dynamoCustomerRepository(table) });
  let client: Stripe;
  let scope: Scope;
  let subscription: Stripe.Subscription;
  let customer: Stripe.Customer;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    scope = { accountId: platform.account, livemode: false };
    const token = await sdk(platform.publishable_key).tokens.create({ card: { number: '4000000000000341', exp_month: '8', exp_year: '2031' } });
    customer = await client.customers.create({ source: token.id });
    const product = await client.products.create({ name: 'Capacity' });
    const price = await client.prices.create({ product: product.id, unit_amount: 1000, currency: 'usd', recurring: { interval: 'month' } });
    subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  });

  it('Given a customer with a default card, when charged, then the gateway reads the customer and the card: two GetItems (1 RCU in all, as DynamoDB Local reports them)', async () => {
    const charge = await measured(() => gateway.charge(scope, { customer: customer.id, amount: 1000, currency: 'usd', invoice: 'in_capacity' }, Date.now()));
    expect(charge.result).toMatchObject({ status: 'failed', declineCode: 'generic_decline' });
    expect(charge.calls).toEqual(['GetItem', 'GetItem']);
    expect(charge.readUnits).toBe(1);
    expect(charge.writeUnits).toBe(0);
  });

  it('Given an item, when found by id, then it is two GetItems (pointer, subscription; 1 RCU in all, as DynamoDB Local reports them)', async () => {
    const found = await measured(() => subscriptions.findByItem(scope, subscription.items.data[0]!.id));
    expect(found.result?.id).toBe(subscription.id);
    expect(found.calls).toEqual(['GetItem', 'GetItem']);
    expect(found.readUnits).toBe(1);
  });

  it('Given a subscription, when an item is added and then removed, then each is one transaction of the versioned put (2 WCU per KB started) and the pointer (2 WCU)', async () => {
    const current = (await subscriptions.get(scope, subscription.id))!;
    const item = { ...current.items[0]!, id: 'si_capacityitem01', quantity: 2 };
    const added = { ...current, version: current.version + 1, items: [...current.items, item] };
    // Two items of one price and the lifecycle's fields make the subscription item 2–3 KB: 6 WCU transactional, and the pointer 2.
    const adding = await measured(() => subscriptions.replaceItems(added, { added: [item.id], removed: [] }));
    expect(adding).toMatchObject({ result: true, calls: ['TransactWriteItems'], writeUnits: 8 });
    const removed = { ...added, version: added.version + 1, items: current.items };
    // Back to one item, still 2–3 KB with its prices' copies and the lifecycle's fields: 6 WCU, and the pointer's delete 2.
    const removing = await measured(() => subscriptions.replaceItems(removed, { added: [], removed: [item.id] }));
    expect(removing).toMatchObject({ result: true, calls: ['TransactWriteItems'], writeUnits: 8 });
    expect(await subscriptions.findByItem(scope, item.id)).toBeUndefined();
  });
});
