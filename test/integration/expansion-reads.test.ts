import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { callScope, withCallScope } from '#shared/aws/aws-calls.ts';
import { dynamoCatalogueRepository } from '#shared/data/billing-repositories.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import {
  dynamoAuthorizationRepository,
  dynamoCardholderRepository,
  dynamoCardRepository,
  dynamoTransactionRepository,
} from '#shared/data/issuing-repository.ts';
import { expansionLoaders } from '#shared/expansion/loaders.ts';
import { listOf, planExpansions, type ExpansionPlan, type ExpansionRoot } from '#shared/expansion/plan.ts';
import { expander } from '#shared/expansion/resolver.ts';
import type { Scope } from '#shared/platform/types.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import { dynamoInvoiceRepository } from '#shared/data/invoice-repository.ts';
import { meteredStackTable, api, newPlatform, sdk } from '../support/stack.ts';

/** The expander on repositories whose DynamoDB calls are counted, with the units DynamoDB Local reports. */
function meteredExpander() {
  const table = meteredStackTable();
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

const planOf = (root: ExpansionRoot, paths: string[]) => planExpansions(root, paths) as ExpansionPlan;

describe('what an expansion reads from DynamoDB: one batched read per level', () => {
  let key: string;
  let scope: Scope;
  let client: Stripe;
  const expand = meteredExpander();
  beforeAll(async () => {
    const platform = await newPlatform();
    key = platform.secret_key;
    scope = { accountId: platform.account, livemode: false };
    client = sdk(key);
  });

  /** The calls and read units of one expansion of the body `path` answers. */
  async function reads(path: string, root: ExpansionRoot, paths: string[]) {
    const body = (await api('GET', path, { key })).body;
    const measured = callScope({ measure: true });
    const expanded = await withCallScope(measured, () => expand(scope, body, planOf(root, paths)));
    return {
      expanded: expanded as any,
      calls: measured.calls.map((call) => `${call.operation}:${call.actions.length}`),
      readUnits: measured.calls.reduce((sum, call) => sum + call.readUnits, 0),
    };
  }

  it('reads a subscription’s customer and its items’ products in one call, the customer’s source in a second', async () => {
    const token = await api('POST', '/v1/tokens', {
      key,
      form: `card[number]=4242424242424242&card[exp_month]=8&card[exp_year]=${new Date().getUTCFullYear() + 2}&card[cvc]=123`,
    });
    const customer = await client.customers.create({ name: 'Ada', source: token.body.id });
    const products = await Promise.all(['A', 'B'].map((name) => client.products.create({ name })));
    const prices = await Promise.all(
      products.map((product) => client.prices.create({ product: product.id, currency: 'usd', unit_amount: 100, recurring: { interval: 'month' } })),
    );
    const subscription = await client.subscriptions.create({ customer: customer.id, items: prices.map((price) => ({ price: price.id })) });

    const { expanded, calls, readUnits } = await reads(`/v1/subscriptions/${subscription.id}`, { type: 'subscription', shape: 'one' }, [
      'customer.default_source',
      'items.data.price.product',
    ]);
    // One BatchGetItem of 3 keys (the customer, two products), then a GetItem (the source): 1.5 + 0.5 read units
    expect(calls).toEqual(['BatchGetItem:3', 'GetItem:1']);
    expect(readUnits).toBe(2);
    expect(expanded.customer.default_source.id).toBe(customer.default_source);
    expect(expanded.items.data.map((item: any) => item.price.product.id).sort()).toEqual(products.map((product) => product.id).sort());
  });

  it('reads a page of 20 products’ default prices in one call, and their products in a second', async () => {
    for (let i = 0; i < 20; i++) {
      const product = await client.products.create({ name: `P${i}` });
      const price = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 100 + i });
      await client.products.update(product.id, { default_price: price.id });
    }
    const { expanded, calls, readUnits } = await reads('/v1/products?limit=20', listOf('product'), ['data.default_price.product']);
    expect(calls).toEqual(['BatchGetItem:20', 'BatchGetItem:20']);
    expect(readUnits).toBe(20);
    expect(expanded.data.every((product: any) => product.default_price.product.id === product.id)).toBe(true);
  });

  it('reads a transaction’s authorization, card and cardholder in one call, the authorization’s transactions in a second', async () => {
    const cardholder = await client.issuing.cardholders.create({
      name: 'Jenny Rosen',
      billing: { address: { line1: '1 Main Street', city: 'San Francisco', state: 'CA', postal_code: '94111', country: 'US' } },
    });
    const card = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual', status: 'active' });
    const authorization = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 1_000 });
    const captured = await client.testHelpers.issuing.authorizations.capture(authorization.id);
    const { expanded, calls } = await reads(`/v1/issuing/transactions/${captured.transactions[0]!.id}`, { type: 'issuing.transaction', shape: 'one' }, [
      'authorization',
      'card',
      'cardholder',
    ]);
    // The authorization, the card, the cardholder (for the card and the field): one call; then the transaction
    expect(calls).toEqual(['BatchGetItem:3', 'GetItem:1']);
    expect(expanded).toMatchObject({ authorization: { id: authorization.id, transactions: [{ id: captured.transactions[0]!.id }] }, card: { id: card.id } });
  });
});
