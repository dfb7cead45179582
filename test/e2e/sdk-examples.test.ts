import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { newPlatform, sdk } from '../support/stack.ts';

/**
 * The official SDK's generated example calls (stripe-node's `test/resources/generated_examples_test`)
 * for this service's resource families, run as written: only ids and placeholder values are replaced,
 * by objects made here (a placeholder card number by a published test card, an expired year by next
 * year's, a placeholder event type by a real one). Families this service does not serve (payment
 * methods, tax ids, search, product catalog imports…) are left out. Each call must answer the object the
 * SDK's types describe.
 */
const decimal = (value: string) => Stripe.Decimal.from(value);
const nextYear = String(new Date().getUTCFullYear() + 1);

describe("the SDK's generated examples, ids and placeholders replaced", () => {
  let stripe: Stripe;
  let customer: Stripe.Customer;
  let product: Stripe.Product;
  let price: Stripe.Price;
  let cardholder: Stripe.Issuing.Cardholder;
  let card: Stripe.Issuing.Card;
  let account: Stripe.V2.Core.Account;

  beforeAll(async () => {
    stripe = sdk((await newPlatform()).secret_key);
    customer = await stripe.customers.create({ name: 'Examples' });
    product = await stripe.products.create({ name: 'Examples product' });
    price = await stripe.prices.create({ product: product.id, unit_amount: 2000, currency: 'usd', recurring: { interval: 'month' } });
    cardholder = await stripe.issuing.cardholders.create({
      type: 'individual',
      name: 'Jenny Rosen',
      billing: { address: { line1: '1234 Main Street', city: 'San Francisco', state: 'CA', country: 'US', postal_code: '94111' } },
    });
    card = await stripe.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual', status: 'active' });
    account = await stripe.v2.core.accounts.create({ identity: { country: 'us' }, configuration: { merchant: {} } });
  });

  describe('v1 customers and their sources', () => {
    let bankAccount: string;
    let cardSource: string;

    it('customers: create, update, retrieve, list', async () => {
      const created = await stripe.customers.create({ description: 'My First Test Customer (created for API docs at https://www.stripe.com/docs/api)' });
      expect(created).toMatchObject({ object: 'customer', description: expect.stringContaining('My First Test Customer') });
      expect(await stripe.customers.update(created.id, { metadata: { order_id: '6735' } })).toMatchObject({ metadata: { order_id: '6735' } });
      expect(await stripe.customers.retrieve(created.id)).toMatchObject({ id: created.id });
      expect((await stripe.customers.list({ limit: 3 })).data.length).toBeGreaterThan(0);
    });

    it('sources: create from a bank account token and a card token, list by kind, retrieve, update, verify', async () => {
      const bankToken = await stripe.tokens.create({
        bank_account: {
          country: 'US',
          currency: 'usd',
          account_holder_name: 'Jenny Rosen',
          account_holder_type: 'individual',
          routing_number: '110000000',
          account_number: '000123456789',
        },
      });
      const cardToken = await stripe.tokens.create({ card: { number: '4242424242424242', exp_month: '5', exp_year: nextYear, cvc: '314' } });
      expect(bankToken.id).toMatch(/^btok_/);
      const bank = await stripe.customers.createSource(customer.id, { source: bankToken.id });
      expect(bank).toMatchObject({ object: 'bank_account', customer: customer.id, last4: '6789' });
      bankAccount = bank.id;
      const cardAttached = await stripe.customers.createSource(customer.id, { source: cardToken.id });
      expect(cardAttached).toMatchObject({ object: 'card', customer: customer.id, last4: '4242' });
      cardSource = cardAttached.id;

      expect((await stripe.customers.listSources(customer.id, { object: 'bank_account', limit: 3 })).data.map((source) => source.id)).toEqual([bankAccount]);
      expect((await stripe.customers.listSources(customer.id, { object: 'card', limit: 3 })).data.map((source) => source.id)).toEqual([cardSource]);
      expect(await stripe.customers.retrieveSource(customer.id, bankAccount)).toMatchObject({ id: bankAccount, object: 'bank_account' });
      expect(await stripe.customers.retrieveSource(customer.id, cardSource)).toMatchObject({ id: cardSource, object: 'card' });
      expect(await stripe.customers.updateSource(customer.id, cardSource, { name: 'Kamil' })).toMatchObject({ id: cardSource, name: 'Kamil' });
      expect(await stripe.customers.updateSource(customer.id, bankAccount, { metadata: { order_id: '6735' } })).toMatchObject({
        metadata: { order_id: '6735' },
      });
      expect(await stripe.customers.updateSource(customer.id, cardSource, { name: 'Jenny Rosen' })).toMatchObject({ name: 'Jenny Rosen' });
      expect(await stripe.customers.verifySource(customer.id, bankAccount, { amounts: [32, 45] })).toMatchObject({ id: bankAccount, status: 'verified' });
    });

    it('sources and customers: delete', async () => {
      expect(await stripe.customers.deleteSource(customer.id, bankAccount)).toMatchObject({ id: bankAccount });
      expect(await stripe.customers.deleteSource(customer.id, cardSource)).toMatchObject({ id: cardSource });
      const doomed = await stripe.customers.create({});
      expect(await stripe.customers.del(doomed.id)).toMatchObject({ id: doomed.id, deleted: true });
    });
  });

  describe('v1 tokens', () => {
    it('creates every kind of token and retrieves one', async () => {
      const cardToken = await stripe.tokens.create({ card: { number: '4242424242424242', exp_month: '5', exp_year: nextYear, cvc: '314' } });
      expect(cardToken).toMatchObject({ object: 'token', type: 'card' });
      expect(await stripe.tokens.retrieve(cardToken.id)).toMatchObject({ id: cardToken.id });
      const bank = await stripe.tokens.create({
        bank_account: {
          country: 'US',
          currency: 'usd',
          account_holder_name: 'Jenny Rosen',
          account_holder_type: 'individual',
          routing_number: '110000000',
          account_number: '000123456789',
        },
      });
      expect(bank).toMatchObject({ type: 'bank_account' });
      expect(await stripe.tokens.create({ pii: { id_number: '000000000' } })).toMatchObject({ type: 'pii' });
      expect(await stripe.tokens.create({ account: { individual: { first_name: 'Jane', last_name: 'Doe' }, tos_shown_and_accepted: true } })).toMatchObject({
        type: 'account',
      });
      expect(await stripe.tokens.create({ person: { first_name: 'Jane', last_name: 'Doe', relationship: { owner: true } } })).toMatchObject({ type: 'person' });
      expect(await stripe.tokens.create({ cvc_update: { cvc: '123' } })).toMatchObject({ type: 'cvc_update' });
    });
  });

  describe('v1 products, prices and subscriptions', () => {
    it('products: create, update, retrieve, list, delete', async () => {
      const gold = await stripe.products.create({ name: 'Gold Special' });
      expect(await stripe.products.update(gold.id, { metadata: { order_id: '6735' } })).toMatchObject({ metadata: { order_id: '6735' } });
      expect(await stripe.products.retrieve(gold.id)).toMatchObject({ name: 'Gold Special' });
      expect((await stripe.products.list({ limit: 3 })).data.length).toBeGreaterThan(0);
      expect(await stripe.products.del(gold.id)).toMatchObject({ id: gold.id, object: 'product', deleted: true });
    });

    it('prices: create (with currency options), update, retrieve, list', async () => {
      const withOptions = await stripe.prices.create({
        unit_amount: 2000,
        currency: 'usd',
        currency_options: { uah: { unit_amount: 5000 }, eur: { unit_amount: 1800 } },
        recurring: { interval: 'month' },
        product: product.id,
      });
      expect(withOptions).toMatchObject({ object: 'price', unit_amount: 2000, currency: 'usd' });
      const expanded = await stripe.prices.retrieve(withOptions.id, { expand: ['currency_options'] });
      expect(expanded.currency_options).toMatchObject({ uah: { unit_amount: 5000 }, eur: { unit_amount: 1800 }, usd: { unit_amount: 2000 } });
      const plain = await stripe.prices.create({ unit_amount: 2000, currency: 'usd', recurring: { interval: 'month' }, product: product.id });
      expect(await stripe.prices.update(plain.id, { metadata: { order_id: '6735' } })).toMatchObject({ metadata: { order_id: '6735' } });
      expect(await stripe.prices.retrieve(plain.id)).toMatchObject({ id: plain.id });
      expect((await stripe.prices.list({ limit: 3 })).data.length).toBeGreaterThan(0);
    });

    it('subscriptions: create, update, retrieve, list, cancel', async () => {
      // Paid on creation with the customer's card (without one it would be `incomplete`, as the reference makes it).
      const subscriber = await stripe.customers.create({ source: 'tok_visa' });
      const subscription = await stripe.subscriptions.create({ customer: subscriber.id, items: [{ price: price.id }] });
      expect(subscription).toMatchObject({ object: 'subscription', status: 'active' });
      expect(await stripe.subscriptions.update(subscription.id, { metadata: { order_id: '6735' } })).toMatchObject({ metadata: { order_id: '6735' } });
      expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({ id: subscription.id });
      expect((await stripe.subscriptions.list({ limit: 3 })).data.length).toBeGreaterThan(0);
      expect(await stripe.subscriptions.cancel(subscription.id)).toMatchObject({ status: 'canceled' });
    });
  });

  describe('v1 issuing', () => {
    it('cardholders and cards: create, update, retrieve, list', async () => {
      const jenny = await stripe.issuing.cardholders.create({
        type: 'individual',
        name: 'Jenny Rosen',
        email: 'jenny.rosen@example.com',
        phone_number: '+18888675309',
        billing: { address: { line1: '1234 Main Street', city: 'San Francisco', state: 'CA', country: 'US', postal_code: '94111' } },
      });
      expect(await stripe.issuing.cardholders.update(jenny.id, { metadata: { order_id: '6735' } })).toMatchObject({ metadata: { order_id: '6735' } });
      expect(await stripe.issuing.cardholders.retrieve(jenny.id)).toMatchObject({ email: 'jenny.rosen@example.com' });
      expect((await stripe.issuing.cardholders.list({ limit: 3 })).data.length).toBeGreaterThan(0);
      const virtual = await stripe.issuing.cards.create({ cardholder: jenny.id, currency: 'usd', type: 'virtual' });
      expect(await stripe.issuing.cards.update(virtual.id, { metadata: { order_id: '6735' } })).toMatchObject({ metadata: { order_id: '6735' } });
      expect(await stripe.issuing.cards.retrieve(virtual.id)).toMatchObject({ id: virtual.id });
      expect((await stripe.issuing.cards.list({ limit: 3 })).data.length).toBeGreaterThan(0);
    });

    it('authorizations (test helpers and API) and transactions', async () => {
      const authorize = () =>
        stripe.testHelpers.issuing.authorizations.create({
          amount: 100,
          amount_details: { atm_fee: 10, cashback_amount: 5 },
          authorization_method: 'chip',
          card: card.id,
          currency: 'usd',
          is_amount_controllable: true,
          merchant_data: {
            category: 'ac_refrigeration_repair',
            city: 'foo',
            country: 'US', // the example's placeholder is 'bar'; a country is two letters
            name: 'foo',
            network_id: 'bar',
            postal_code: 'foo',
            state: 'bar',
            terminal_id: 'foo',
          },
          network_data: { acquiring_institution_id: 'foo' },
          verification_data: { address_line1_check: 'mismatch', address_postal_code_check: 'match', cvc_check: 'match', expiry_check: 'mismatch' },
          wallet: 'apple_pay',
        });
      const authorization = await authorize();
      expect(authorization).toMatchObject({ object: 'issuing.authorization', status: 'pending', amount: 100 });
      expect(await stripe.testHelpers.issuing.authorizations.increment(authorization.id, { increment_amount: 50, is_amount_controllable: true })).toMatchObject(
        {
          amount: 150,
        },
      );
      expect(await stripe.testHelpers.issuing.authorizations.reverse(authorization.id, { reverse_amount: 20 })).toMatchObject({ amount: 130 });
      const captured = await stripe.testHelpers.issuing.authorizations.capture(authorization.id, {
        capture_amount: 100,
        close_authorization: true,
        purchase_details: {
          flight: {
            departure_at: 1633651200,
            passenger_name: 'John Doe',
            refundable: true,
            segments: [
              {
                arrival_airport_code: 'SFO',
                carrier: 'Delta',
                departure_airport_code: 'LAX',
                flight_number: 'DL100',
                service_class: 'Economy',
                stopover_allowed: true,
              },
            ],
            travel_agency: 'Orbitz',
          },
          fuel: { type: 'diesel', unit: 'liter', unit_cost_decimal: decimal('3.5'), quantity_decimal: decimal('10') },
          lodging: { check_in_at: 1633651200, nights: 2 },
          receipt: [{ description: 'Room charge', quantity: decimal('1'), total: 200, unit_cost: 200 }],
          reference: 'foo',
        },
      });
      expect(captured).toMatchObject({ status: 'closed' });
      expect(captured.transactions).toHaveLength(1);
      const expiring = await authorize();
      expect(await stripe.testHelpers.issuing.authorizations.expire(expiring.id)).toMatchObject({ status: 'expired' });

      expect(await stripe.issuing.authorizations.update(authorization.id, { metadata: { order_id: '6735' } })).toMatchObject({
        metadata: { order_id: '6735' },
      });
      expect(await stripe.issuing.authorizations.retrieve(authorization.id)).toMatchObject({ id: authorization.id });
      expect((await stripe.issuing.authorizations.list({ limit: 3 })).data.length).toBeGreaterThan(0);

      const transaction = captured.transactions[0]!;
      expect(transaction).toMatchObject({ object: 'issuing.transaction', type: 'capture', authorization: authorization.id });
      expect(await stripe.issuing.transactions.update(transaction.id, { metadata: { order_id: '6735' } })).toMatchObject({ metadata: { order_id: '6735' } });
      expect(await stripe.issuing.transactions.retrieve(transaction.id)).toMatchObject({ id: transaction.id, purchase_details: { reference: 'foo' } });
      expect((await stripe.issuing.transactions.list({ limit: 3 })).data.length).toBeGreaterThan(0);
      expect(await stripe.testHelpers.issuing.transactions.refund(transaction.id, { refund_amount: 50 })).toMatchObject({
        object: 'issuing.transaction',
        type: 'refund',
      });
      const merchant_data = {
        category: 'ac_refrigeration_repair' as const,
        city: 'foo',
        country: 'US',
        name: 'foo',
        network_id: 'bar',
        postal_code: '10001',
        state: 'NY',
        terminal_id: 'foo',
      };
      const purchase_details = {
        lodging: { check_in_at: 1533651200, nights: 2 },
        receipt: [{ description: 'Room charge', quantity: decimal('1'), total: 200, unit_cost: 200 }],
        reference: 'foo',
      };
      expect(
        await stripe.testHelpers.issuing.transactions.createForceCapture({ amount: 100, card: card.id, currency: 'usd', merchant_data, purchase_details }),
      ).toMatchObject({
        type: 'capture',
        authorization: null,
        card: card.id,
      });
      expect(
        await stripe.testHelpers.issuing.transactions.createUnlinkedRefund({ amount: 100, card: card.id, currency: 'usd', merchant_data, purchase_details }),
      ).toMatchObject({
        type: 'refund',
        authorization: null,
      });
    });
  });

  describe('v1 webhook endpoints, events and account links', () => {
    it('webhook endpoints: create, update, retrieve, list, delete', async () => {
      const endpoint = await stripe.webhookEndpoints.create({
        url: 'https://example.com/my/webhook/endpoint',
        enabled_events: ['charge.failed', 'charge.succeeded'],
      });
      expect(endpoint).toMatchObject({ object: 'webhook_endpoint', enabled_events: ['charge.failed', 'charge.succeeded'] });
      expect(await stripe.webhookEndpoints.update(endpoint.id, { url: 'https://example.com/new_endpoint' })).toMatchObject({
        url: 'https://example.com/new_endpoint',
      });
      expect(await stripe.webhookEndpoints.retrieve(endpoint.id)).toMatchObject({ id: endpoint.id });
      expect((await stripe.webhookEndpoints.list({ limit: 3 })).data.length).toBeGreaterThan(0);
      expect(await stripe.webhookEndpoints.del(endpoint.id)).toMatchObject({ id: endpoint.id, deleted: true });
    });

    it('events: list and retrieve', async () => {
      const events = await stripe.events.list({ limit: 3 });
      expect(events.data.length).toBeGreaterThan(0);
      expect(await stripe.events.retrieve(events.data[0]!.id)).toMatchObject({ object: 'event', id: events.data[0]!.id });
    });

    it('account links (v1)', async () => {
      const link = await stripe.accountLinks.create({
        account: account.id,
        refresh_url: 'https://example.com/reauth',
        return_url: 'https://example.com/return',
        type: 'account_onboarding',
      });
      expect(link).toMatchObject({ object: 'account_link', url: expect.stringContaining('/hosted/account_links/') });
    });
  });

  describe('v2 core', () => {
    it('accounts: create, retrieve, update, list, close', async () => {
      const created = await stripe.v2.core.accounts.create();
      expect(created).toMatchObject({ object: 'v2.core.account' });
      expect(await stripe.v2.core.accounts.retrieve(created.id)).toMatchObject({ id: created.id });
      expect(await stripe.v2.core.accounts.update(created.id)).toMatchObject({ id: created.id });
      expect((await stripe.v2.core.accounts.list()).data.length).toBeGreaterThan(0);
      expect(await stripe.v2.core.accounts.close(created.id)).toMatchObject({ id: created.id, closed: true });
    });

    it('persons and person tokens', async () => {
      const person = await stripe.v2.core.accounts.persons.create(account.id);
      expect(person).toMatchObject({ object: 'v2.core.account_person', account: account.id });
      expect(await stripe.v2.core.accounts.persons.update(account.id, person.id)).toMatchObject({ id: person.id });
      expect(await stripe.v2.core.accounts.persons.retrieve(account.id, person.id)).toMatchObject({ id: person.id });
      expect((await stripe.v2.core.accounts.persons.list(account.id)).data.map((each) => each.id)).toContain(person.id);
      expect(await stripe.v2.core.accounts.persons.del(account.id, person.id)).toMatchObject({ id: person.id });
      const token = await stripe.v2.core.accounts.personTokens.create(account.id);
      expect(token).toMatchObject({ object: 'v2.core.account_person_token', used: false });
      expect(await stripe.v2.core.accounts.personTokens.retrieve(account.id, token.id)).toMatchObject({ id: token.id });
    });

    it('account tokens and account links', async () => {
      const token = await stripe.v2.core.accountTokens.create();
      expect(token).toMatchObject({ object: 'v2.core.account_token', used: false });
      expect(await stripe.v2.core.accountTokens.retrieve(token.id)).toMatchObject({ id: token.id });
      // The spec requires `configurations`, which SDK 23.1.0's types do not declare (docs/api.md: SDK types lag the spec).
      const link = await stripe.v2.core.accountLinks.create({
        account: account.id,
        use_case: {
          account_onboarding: {
            collection_options: { fields: 'eventually_due', future_requirements: 'include' },
            configurations: ['merchant'],
            refresh_url: 'https://example.com/refresh_url',
            return_url: 'https://example.com/return_url',
          },
          account_update: {
            collection_options: { fields: 'eventually_due', future_requirements: 'include' },
            configurations: ['merchant'],
            refresh_url: 'https://example.com/refresh_url',
            return_url: 'https://example.com/return_url',
          },
          type: 'account_onboarding',
        },
      } as Stripe.V2.Core.AccountLinkCreateParams);
      expect(link).toMatchObject({ object: 'v2.core.account_link', account: account.id });
    });

    it('events and event destinations', async () => {
      const destination = await stripe.v2.core.eventDestinations.create({
        enabled_events: ['v2.core.account.created'],
        event_payload: 'thin',
        name: 'name',
        type: 'webhook_endpoint',
        webhook_endpoint: { url: 'https://example.com/thin' },
      });
      expect(await stripe.v2.core.eventDestinations.retrieve(destination.id)).toMatchObject({ id: destination.id });
      expect(await stripe.v2.core.eventDestinations.update(destination.id)).toMatchObject({ id: destination.id });
      expect((await stripe.v2.core.eventDestinations.list()).data.length).toBeGreaterThan(0);
      expect(await stripe.v2.core.eventDestinations.disable(destination.id)).toMatchObject({ status: 'disabled' });
      expect(await stripe.v2.core.eventDestinations.enable(destination.id)).toMatchObject({ status: 'enabled' });
      expect(await stripe.v2.core.eventDestinations.ping(destination.id)).toMatchObject({ type: 'v2.core.event_destination.ping' });
      expect(await stripe.v2.core.eventDestinations.del(destination.id)).toMatchObject({ id: destination.id });
      const events = await stripe.v2.core.events.list();
      expect(events.data.length).toBeGreaterThan(0);
      expect(await stripe.v2.core.events.retrieve(events.data[0]!.id)).toMatchObject({ id: events.data[0]!.id });
    });
  });

  describe('v2 billing: meter events', () => {
    it('meter events, adjustments, sessions and the stream', async () => {
      await stripe.billing.meters.create({
        display_name: 'Examples',
        event_name: 'event_name',
        default_aggregation: { formula: 'sum' },
        customer_mapping: { event_payload_key: 'key', type: 'by_id' },
      });
      const event = await stripe.v2.billing.meterEvents.create({ event_name: 'event_name', payload: { key: customer.id, value: '1' } });
      expect(event).toMatchObject({ object: 'v2.billing.meter_event', event_name: 'event_name' });
      const adjustment = await stripe.v2.billing.meterEventAdjustments.create({
        cancel: { identifier: event.identifier },
        event_name: 'event_name',
        type: 'cancel',
      });
      expect(adjustment).toMatchObject({ object: 'v2.billing.meter_event_adjustment', status: 'pending' });
      const session = await stripe.v2.billing.meterEventSession.create();
      expect(session).toMatchObject({ object: 'v2.billing.meter_event_session' });
      await sdk(session.authentication_token).v2.billing.meterEventStream.create({
        events: [{ event_name: 'event_name', identifier: 'identifier', payload: { key: customer.id, value: '1' }, timestamp: new Date().toISOString() }],
      });
    });
  });
});
