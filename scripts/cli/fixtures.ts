// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${step:path}` is the fixtures' reference to an earlier answer, as in the reference tool's fixtures.
import { thinMirrorOf } from '#shared/events/catalogue.ts';

/**
 * The fixtures of `cli trigger`: for each event type, the API calls that make the real objects, so that the
 * service itself emits the real event (nothing is fabricated). Modelled on the reference command-line tool's
 * fixtures: named steps, each one request, whose answers later steps refer to as `${name:path.to.field}`
 * (`--override`, `--add` and `--remove` address a step's params by its name).
 */

/** A param value: a plain value, a string with `${step:path}` references, or a value computed from earlier answers. */
export type ParamValue = string | number | boolean | null | ParamValue[] | { [key: string]: ParamValue } | ((answers: Answers) => unknown);
export type Params = Record<string, ParamValue>;
export type Answers = Record<string, Record<string, unknown>>;

export interface FixtureStep {
  /** Later steps, `--override` and friends name the step by it. */
  name: string;
  /** `visit` opens the (templated) URL with a plain GET, as a browser would: the hosted account link flow. */
  method: 'get' | 'post' | 'delete' | 'visit';
  path: string;
  params?: Params;
  /** The error type this step is meant to meet (a declined card): the fixture goes on after it. */
  expectedErrorType?: string;
  /** Authenticate with this (templated) token instead of the secret key: a meter event session's. */
  bearer?: string;
}

export interface Fixture {
  /** The event type the fixture makes the service emit. */
  type: string;
  /** Said after the run where the event follows later than the calls (a report window, a worker). */
  note?: string;
  steps: FixtureStep[];
}

const createdBy = '(created by the service CLI)';
/** A unique suffix per run: meter event names are unique per platform, and a fixture may run many times. */
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

const customer = (params: Params = {}): FixtureStep => ({
  name: 'customer',
  method: 'post',
  path: '/v1/customers',
  params: { description: createdBy, ...params },
});
const payingCustomer = customer({ source: 'tok_visa' });
const decliningCustomer = customer({ source: 'tok_chargeCustomerFail' });
const product: FixtureStep = { name: 'product', method: 'post', path: '/v1/products', params: { name: 'myproduct', description: createdBy } };
const price: FixtureStep = {
  name: 'price',
  method: 'post',
  path: '/v1/prices',
  params: { product: '${product:id}', unit_amount: 1500, currency: 'usd' },
};
const recurringPrice: FixtureStep = {
  name: 'price',
  method: 'post',
  path: '/v1/prices',
  params: { product_data: { name: 'myproduct' }, unit_amount: 2000, currency: 'usd', recurring: { interval: 'month' } },
};
const subscription: FixtureStep = {
  name: 'subscription',
  method: 'post',
  path: '/v1/subscriptions',
  params: { customer: '${customer:id}', items: [{ price: '${price:id}' }] },
};
const invoiceItem: FixtureStep = {
  name: 'invoiceitem',
  method: 'post',
  path: '/v1/invoiceitems',
  params: { amount: 2000, currency: 'usd', customer: '${customer:id}', description: createdBy },
};
const draftInvoice = (params: Params = {}): FixtureStep => ({
  name: 'invoice',
  method: 'post',
  path: '/v1/invoices',
  params: { customer: '${customer:id}', description: createdBy, pending_invoice_items_behavior: 'include', ...params },
});
const finalize: FixtureStep = { name: 'invoice_finalize', method: 'post', path: '/v1/invoices/${invoice:id}/finalize' };
const meter: FixtureStep = {
  name: 'billing_meter',
  method: 'post',
  path: '/v1/billing/meters',
  params: { display_name: 'CLI Billing Meter', event_name: () => `cli_fixture_${unique()}`, default_aggregation: { formula: 'sum' } },
};
const cardholder: FixtureStep = {
  name: 'cardholder',
  method: 'post',
  path: '/v1/issuing/cardholders',
  params: {
    name: 'My Cardholder',
    type: 'individual',
    billing: { address: { line1: '1234 Main Street', city: 'San Francisco', state: 'CA', postal_code: '94111', country: 'US' } },
  },
};
const card: FixtureStep = {
  name: 'card',
  method: 'post',
  path: '/v1/issuing/cards',
  params: { currency: 'usd', type: 'virtual', cardholder: '${cardholder:id}', status: 'active' },
};
const authorization: FixtureStep = {
  name: 'authorization',
  method: 'post',
  path: '/v1/test_helpers/issuing/authorizations',
  params: { card: '${card:id}', amount: 1000, authorization_method: 'online' },
};
const capture: FixtureStep = { name: 'authorization_capture', method: 'post', path: '/v1/test_helpers/issuing/authorizations/${authorization:id}/capture' };
const testClock: FixtureStep = {
  name: 'test_clock',
  method: 'post',
  path: '/v1/test_helpers/test_clocks',
  params: { frozen_time: () => Math.floor(Date.now() / 1000), name: createdBy },
};
const advanceClock: FixtureStep = {
  name: 'test_clock_advance',
  method: 'post',
  path: '/v1/test_helpers/test_clocks/${test_clock:id}/advance',
  params: { frozen_time: (answers) => Number(answers.test_clock!.frozen_time) + 3600 },
};
const account: FixtureStep = {
  name: 'account',
  method: 'post',
  path: '/v2/core/accounts',
  params: { display_name: 'CLI Account', contact_email: 'cli@example.com', configuration: { recipient: {} } },
};
const updateAccount = (params: Params): FixtureStep => ({ name: 'account_update', method: 'post', path: '/v2/core/accounts/${account:id}', params });
const person: FixtureStep = {
  name: 'person',
  method: 'post',
  path: '/v2/core/accounts/${account:id}/persons',
  params: { given_name: 'Jenny', surname: 'Rosen', email: 'jenny.rosen@example.com' },
};
const meterEventSession: FixtureStep = { name: 'billing_meter_event_session', method: 'post', path: '/v2/billing/meter_event_session' };

const fixtures: Fixture[] = [
  { type: 'customer.created', steps: [customer()] },
  {
    type: 'customer.updated',
    steps: [customer(), { name: 'customer_update', method: 'post', path: '/v1/customers/${customer:id}', params: { metadata: { foo: 'bar' } } }],
  },
  { type: 'customer.deleted', steps: [customer(), { name: 'customer_delete', method: 'delete', path: '/v1/customers/${customer:id}' }] },
  {
    type: 'customer.source.created',
    steps: [customer(), { name: 'source', method: 'post', path: '/v1/customers/${customer:id}/sources', params: { source: 'tok_visa' } }],
  },
  {
    type: 'customer.source.updated',
    steps: [
      payingCustomer,
      { name: 'source_update', method: 'post', path: '/v1/customers/${customer:id}/sources/${customer:default_source}', params: { metadata: { foo: 'bar' } } },
    ],
  },
  {
    type: 'customer.source.deleted',
    steps: [payingCustomer, { name: 'source_delete', method: 'delete', path: '/v1/customers/${customer:id}/sources/${customer:default_source}' }],
  },
  { type: 'product.created', steps: [product] },
  {
    type: 'product.updated',
    steps: [product, { name: 'product_update', method: 'post', path: '/v1/products/${product:id}', params: { metadata: { foo: 'bar' } } }],
  },
  { type: 'product.deleted', steps: [product, { name: 'product_delete', method: 'delete', path: '/v1/products/${product:id}' }] },
  { type: 'price.created', steps: [product, price] },
  {
    type: 'price.updated',
    steps: [product, price, { name: 'price_update', method: 'post', path: '/v1/prices/${price:id}', params: { metadata: { foo: 'bar' } } }],
  },
  { type: 'customer.subscription.created', steps: [payingCustomer, recurringPrice, subscription] },
  {
    type: 'customer.subscription.updated',
    steps: [
      payingCustomer,
      recurringPrice,
      subscription,
      { name: 'subscription_update', method: 'post', path: '/v1/subscriptions/${subscription:id}', params: { metadata: { foo: 'bar' } } },
    ],
  },
  {
    type: 'customer.subscription.deleted',
    steps: [payingCustomer, recurringPrice, subscription, { name: 'subscription_cancel', method: 'delete', path: '/v1/subscriptions/${subscription:id}' }],
  },
  // A subscription's first invoice goes through every stage at once: created, finalized, paid.
  ...(['invoice.created', 'invoice.finalized', 'invoice.paid', 'invoice.payment_succeeded'] as const).map((type) => ({
    type,
    steps: [payingCustomer, recurringPrice, subscription],
  })),
  // The card is attached, then every charge of it fails: the first invoice's payment is declined.
  { type: 'invoice.payment_failed', steps: [decliningCustomer, recurringPrice, subscription] },
  {
    type: 'invoice.updated',
    steps: [
      customer(),
      invoiceItem,
      draftInvoice(),
      { name: 'invoice_update', method: 'post', path: '/v1/invoices/${invoice:id}', params: { metadata: { foo: 'bar' } } },
    ],
  },
  {
    type: 'invoice.deleted',
    steps: [customer(), invoiceItem, draftInvoice(), { name: 'invoice_delete', method: 'delete', path: '/v1/invoices/${invoice:id}' }],
  },
  {
    type: 'invoice.sent',
    steps: [
      customer({ email: 'cli@example.com' }),
      invoiceItem,
      draftInvoice({ collection_method: 'send_invoice', days_until_due: 30 }),
      finalize,
      { name: 'invoice_send', method: 'post', path: '/v1/invoices/${invoice:id}/send' },
    ],
  },
  {
    type: 'invoice.voided',
    steps: [customer(), invoiceItem, draftInvoice(), finalize, { name: 'invoice_void', method: 'post', path: '/v1/invoices/${invoice:id}/void' }],
  },
  {
    type: 'invoice.marked_uncollectible',
    steps: [
      customer(),
      invoiceItem,
      draftInvoice(),
      finalize,
      { name: 'invoice_mark_uncollectible', method: 'post', path: '/v1/invoices/${invoice:id}/mark_uncollectible' },
    ],
  },
  { type: 'invoiceitem.created', steps: [customer(), invoiceItem] },
  {
    type: 'invoiceitem.updated',
    steps: [
      customer(),
      invoiceItem,
      { name: 'invoiceitem_update', method: 'post', path: '/v1/invoiceitems/${invoiceitem:id}', params: { metadata: { foo: 'bar' } } },
    ],
  },
  {
    type: 'invoiceitem.deleted',
    steps: [customer(), invoiceItem, { name: 'invoiceitem_delete', method: 'delete', path: '/v1/invoiceitems/${invoiceitem:id}' }],
  },
  { type: 'billing.meter.created', steps: [meter] },
  {
    type: 'billing.meter.updated',
    steps: [
      meter,
      { name: 'billing_meter_update', method: 'post', path: '/v1/billing/meters/${billing_meter:id}', params: { display_name: 'CLI Billing Meter (renamed)' } },
    ],
  },
  {
    type: 'billing.meter.deactivated',
    steps: [meter, { name: 'billing_meter_deactivate', method: 'post', path: '/v1/billing/meters/${billing_meter:id}/deactivate' }],
  },
  {
    type: 'billing.meter.reactivated',
    steps: [
      meter,
      { name: 'billing_meter_deactivate', method: 'post', path: '/v1/billing/meters/${billing_meter:id}/deactivate' },
      { name: 'billing_meter_reactivate', method: 'post', path: '/v1/billing/meters/${billing_meter:id}/reactivate' },
    ],
  },
  {
    type: 'billing.alert.triggered',
    note: 'The alert fires once the usage is counted, a moment after the calls.',
    steps: [
      meter,
      customer(),
      {
        name: 'billing_alert',
        method: 'post',
        path: '/v1/billing/alerts',
        params: {
          alert_type: 'usage_threshold',
          title: 'CLI usage alert',
          usage_threshold: { gte: 10, meter: '${billing_meter:id}', recurrence: 'one_time', filters: [{ type: 'customer', customer: '${customer:id}' }] },
        },
      },
      {
        name: 'billing_meter_event',
        method: 'post',
        path: '/v1/billing/meter_events',
        params: { event_name: '${billing_meter:event_name}', payload: { service_customer_id: '${customer:id}', value: '25' } },
      },
    ],
  },
  {
    type: 'v1.billing.meter.error_report_triggered',
    note: 'Meter errors are gathered per meter over METER_ERROR_WINDOW_SECONDS (60 s by default), then reported.',
    steps: [
      meter,
      {
        name: 'billing_meter_event',
        method: 'post',
        path: '/v2/billing/meter_events',
        params: { event_name: '${billing_meter:event_name}', payload: { service_customer_id: 'cus_doesnotexist', value: '1' } },
      },
    ],
  },
  {
    type: 'v1.billing.meter.no_meter_found',
    note: 'Meter errors are gathered over METER_ERROR_WINDOW_SECONDS (60 s by default), then reported.',
    steps: [
      meterEventSession,
      {
        name: 'billing_meter_event_stream',
        method: 'post',
        path: '/v2/billing/meter_event_stream',
        bearer: '${billing_meter_event_session:authentication_token}',
        params: { events: [{ event_name: () => `cli_no_such_meter_${unique()}`, payload: { value: '10' } }] },
      },
    ],
  },
  { type: 'issuing_cardholder.created', steps: [cardholder] },
  {
    type: 'issuing_cardholder.updated',
    steps: [cardholder, { name: 'cardholder_update', method: 'post', path: '/v1/issuing/cardholders/${cardholder:id}', params: { metadata: { foo: 'bar' } } }],
  },
  { type: 'issuing_card.created', steps: [cardholder, card] },
  {
    type: 'issuing_card.updated',
    steps: [cardholder, card, { name: 'card_update', method: 'post', path: '/v1/issuing/cards/${card:id}', params: { metadata: { foo: 'bar' } } }],
  },
  { type: 'issuing_authorization.created', steps: [cardholder, card, authorization] },
  { type: 'issuing_authorization.updated', steps: [cardholder, card, authorization, capture] },
  { type: 'issuing_transaction.created', steps: [cardholder, card, authorization, capture] },
  {
    type: 'issuing_transaction.updated',
    steps: [
      cardholder,
      card,
      authorization,
      capture,
      {
        name: 'transaction_update',
        method: 'post',
        path: '/v1/issuing/transactions/${authorization_capture:transactions.0.id}',
        params: { metadata: { foo: 'bar' } },
      },
    ],
  },
  { type: 'test_helpers.test_clock.created', steps: [testClock] },
  { type: 'test_helpers.test_clock.advancing', steps: [testClock, advanceClock] },
  { type: 'test_helpers.test_clock.ready', steps: [testClock, advanceClock] },
  {
    type: 'test_helpers.test_clock.deleted',
    steps: [testClock, { name: 'test_clock_delete', method: 'delete', path: '/v1/test_helpers/test_clocks/${test_clock:id}' }],
  },
  { type: 'v2.core.account.created', steps: [account] },
  { type: 'v2.core.account.updated', steps: [account, updateAccount({ display_name: 'CLI Account (renamed)' })] },
  { type: 'v2.core.account.closed', steps: [account, { name: 'account_close', method: 'post', path: '/v2/core/accounts/${account:id}/close' }] },
  { type: 'v2.core.account[identity].updated', steps: [account, updateAccount({ identity: { country: 'us', entity_type: 'individual' } })] },
  { type: 'v2.core.account[defaults].updated', steps: [account, updateAccount({ defaults: { currency: 'usd' } })] },
  {
    type: 'v2.core.account[configuration.recipient].updated',
    steps: [account, updateAccount({ configuration: { recipient: { capabilities: { service_balance: { service_transfers: { requested: true } } } } } })],
  },
  {
    type: 'v2.core.account[configuration.recipient].capability_status_updated',
    steps: [account, updateAccount({ configuration: { recipient: { capabilities: { service_balance: { service_transfers: { requested: true } } } } } })],
  },
  {
    type: 'v2.core.account[requirements].updated',
    steps: [account, updateAccount({ configuration: { recipient: { capabilities: { service_balance: { service_transfers: { requested: true } } } } } })],
  },
  // Requesting a capability adds the configuration, sets the capability's status and what it requires.
  ...(['updated', 'capability_status_updated'] as const).flatMap((change) => [
    {
      type: `v2.core.account[configuration.customer].${change}`,
      steps: [account, updateAccount({ configuration: { customer: { capabilities: { automatic_indirect_tax: { requested: true } } } } })],
    },
    {
      type: `v2.core.account[configuration.merchant].${change}`,
      steps: [account, updateAccount({ configuration: { merchant: { capabilities: { card_payments: { requested: true } } } } })],
    },
  ]),
  { type: 'v2.core.account_person.created', steps: [account, person] },
  {
    type: 'v2.core.account_person.updated',
    steps: [
      account,
      person,
      { name: 'person_update', method: 'post', path: '/v2/core/accounts/${account:id}/persons/${person:id}', params: { given_name: 'Jen' } },
    ],
  },
  {
    type: 'v2.core.account_person.deleted',
    steps: [account, person, { name: 'person_delete', method: 'delete', path: '/v2/core/accounts/${account:id}/persons/${person:id}' }],
  },
  {
    type: 'v2.core.account_link.returned',
    steps: [
      account,
      {
        name: 'account_link',
        method: 'post',
        path: '/v1/account_links',
        params: { account: '${account:id}', type: 'account_onboarding', refresh_url: 'https://example.com/refresh', return_url: 'https://example.com/return' },
      },
      // Nothing is due for a bare recipient: opening the link completes the flow, as a user returning would.
      { name: 'account_link_visit', method: 'visit', path: '${account_link:url}' },
    ],
  },
  {
    type: 'v2.core.event_destination.ping',
    note: 'The destination made for the ping is deleted again, so its delivery ends canceled.',
    steps: [
      {
        name: 'event_destination',
        method: 'post',
        path: '/v2/core/event_destinations',
        params: {
          name: 'CLI ping destination',
          type: 'webhook_endpoint',
          event_payload: 'thin',
          enabled_events: ['v2.core.event_destination.ping'],
          webhook_endpoint: { url: 'https://example.invalid/service-cli-ping' },
        },
      },
      { name: 'event_destination_ping', method: 'post', path: '/v2/core/event_destinations/${event_destination:id}/ping' },
      { name: 'event_destination_delete', method: 'delete', path: '/v2/core/event_destinations/${event_destination:id}' },
    ],
  },
];

/**
 * A snapshot event's thin mirror (`v1.customer.created` beside `customer.created`) is emitted by the same
 * change: its fixture is the snapshot type's.
 */
const mirrors: Fixture[] = fixtures.flatMap((fixture) => {
  const mirror = thinMirrorOf(fixture.type);
  return mirror ? [{ ...fixture, type: mirror }] : [];
});

export const fixturesByType: ReadonlyMap<string, Fixture> = new Map([...fixtures, ...mirrors].map((fixture) => [fixture.type, fixture]));
