import { beforeAll, describe, expect, it } from 'vitest';
import { routes, type Route } from '#functions/routes.ts';
import { issueApiKeys, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, platformStore, sdk, type ApiAnswer, type ApiCall } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

/**
 * Every route of the route table, called with another platform's key, with the owner's key of the other
 * mode and with the owner's publishable key: the documented 404 / 403, never a byte of the owner's data,
 * and the owner's objects unchanged. Generated from the route table, so a new route is covered at once; a
 * route with a path parameter that has no owner object below fails the test until one is added.
 */
const marker = `owner-only-${Math.random().toString(36).slice(2)}`;
const year = String(new Date().getUTCFullYear() + 1);

/** The hosted account-link pages take no API key (the secret in the path is the credential), nor does the OpenAPI document. */
const keyless = (route: Route) => route.path.startsWith('/hosted/') || route.path === '/openapi.json';

/** A client honours 429 and Retry-After, as the SDK does: the live keys' limit is small in the test stack. */
async function call(method: string, path: string, options: ApiCall): Promise<ApiAnswer> {
  for (let attempt = 0; ; attempt++) {
    const answer = await api(method, path, options);
    if (answer.status !== 429 || attempt === 8) return answer;
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
  }
}

describe('the isolation matrix over the route table', () => {
  let owner: CreatedPlatform;
  let ownerLive: CreatedPlatform;
  let stranger: CreatedPlatform;
  /** The owner's object for each path parameter, by the path prefix that names its kind. */
  const ids: Record<string, string> = {};
  const snapshots = new Map<string, string>();
  let connected: string;

  /** The id a route's `{param}` stands for, from the owner's objects. */
  function idFor(route: Route, param: string): string | undefined {
    const path = route.path;
    if (param === 'account_id') return ids.account;
    if (param === 'source_id') return ids.source;
    if (path.startsWith('/v2/core/accounts/{account_id}/persons/')) return ids.person;
    if (path.startsWith('/v2/core/accounts/{account_id}/person_tokens/')) return ids.personToken;
    const kinds: Array<[string, string]> = [
      ['/v1/webhook_endpoints/', 'webhookEndpoint'],
      ['/v1/customers/', 'customer'],
      ['/v1/issuing/cardholders/', 'cardholder'],
      ['/v1/issuing/cards/', 'card'],
      ['/v1/issuing/authorizations/', 'authorization'],
      ['/v1/test_helpers/issuing/authorizations/', 'authorization'],
      ['/v1/issuing/transactions/', 'transaction'],
      ['/v1/test_helpers/issuing/transactions/', 'transaction'],
      ['/v1/test_helpers/test_clocks/', 'testClock'],
      ['/v1/tokens/', 'token'],
      ['/v2/core/account_tokens/', 'accountToken'],
      ['/v1/billing/meters/', 'meter'],
      ['/v1/billing/alerts/', 'alert'],
      ['/v2/billing/meter_event_adjustments/', 'adjustment'],
      ['/v1/products/', 'product'],
      ['/v1/prices/', 'price'],
      ['/v1/subscriptions/', 'subscription'],
      ['/v1/subscription_items/', 'subscriptionItem'],
      ['/v1/invoiceitems/', 'invoiceItem'],
      ['/v1/invoices/', 'invoice'],
      ['/v1/events/', 'snapshotEvent'],
      ['/v2/core/event_destinations/', 'destination'],
      ['/v2/core/events/', 'thinEvent'],
      ['/v2/service/events/', 'snapshotEvent'],
      ['/v2/service/event_destinations/', 'destination'],
      ['/v2/service/webhook_endpoints/', 'webhookEndpoint'],
    ];
    const kind = kinds.find(([prefix]) => path.startsWith(prefix))?.[1];
    return kind ? ids[kind] : undefined;
  }

  /** A valid request for the route (so that a 400 for a missing parameter cannot mask the check). */
  function requestFor(route: Route): { path: string; options: ApiCall } {
    const path = route.path.replace(/\{(\w+)\}/g, (_, param: string) => idFor(route, param) ?? `missing-${param}`);
    const now = Math.floor(Date.now() / 1000);
    const query: Record<string, string> = {
      listMeterEventSummaries: `customer=${ids.customer}&start_time=${now - (now % 60) - 3600}&end_time=${now - (now % 60) + 60}`,
    };
    const forms: Record<string, string> = {
      updateWebhookEndpoint: 'metadata[stranger]=1',
      updateCustomer: 'metadata[stranger]=1',
      updateCustomerSource: 'metadata[stranger]=1',
      createCustomerSource: `source=${ids.token}`,
      verifyCustomerSource: 'amounts[0]=32&amounts[1]=45',
      updateMeter: 'display_name=stranger',
      updateSubscription: 'metadata[stranger]=1',
      updateSubscriptionItem: 'metadata[stranger]=1',
      updateInvoice: 'metadata[stranger]=1',
      updateInvoiceItem: 'metadata[stranger]=1',
      updateIssuingCardholder: 'metadata[stranger]=1',
      updateIssuingCard: 'status=canceled',
      updateIssuingAuthorization: 'metadata[stranger]=1',
      approveIssuingAuthorization: 'amount=1&metadata[stranger]=1',
      declineIssuingAuthorization: 'metadata[stranger]=1',
      updateIssuingTransaction: 'metadata[stranger]=1',
      migrateSubscription: 'billing_mode[type]=flexible',
      incrementTestIssuingAuthorization: 'increment_amount=1',
      finalizeTestIssuingAuthorizationAmount: 'final_amount=1',
      createV1AccountLink: `account=${ids.account}&type=account_onboarding&refresh_url=https%3A%2F%2Fexample.test%2Fr`,
      retryEvent: `webhook_endpoint=${ids.webhookEndpoint}`,
      advanceTestClock: 'frozen_time=1893542400',
    };
    const json: Record<string, unknown> = {
      updateEventDestination: { description: 'stranger' },
      updateAccount: { metadata: { stranger: '1' } },
      updatePerson: { given_name: 'stranger' },
      createPerson: { given_name: 'stranger' },
      createPersonToken: { given_name: 'stranger' },
      resendEvent: { webhook_endpoint: ids.webhookEndpoint },
      createAccountLink: {
        account: ids.account,
        use_case: { type: 'account_onboarding', account_onboarding: { configurations: ['merchant'], refresh_url: 'https://example.test/r' } },
      },
    };
    const v2 = route.path.startsWith('/v2');
    const options: ApiCall = route.method === 'POST' ? (v2 ? { json: json[route.name] ?? {} } : { form: forms[route.name] ?? '' }) : {};
    return { path: query[route.name] ? `${path}?${query[route.name]}` : path, options };
  }

  const addressed = routes.filter((route) => route.path.includes('{') && !keyless(route));

  beforeAll(async () => {
    owner = await newPlatform();
    stranger = await newPlatform();
    ownerLive = await issueApiKeys(platformStore(), owner.account, { livemode: true });
    const client = sdk(owner.secret_key);
    const customer = await client.customers.create({ name: marker, metadata: { marker } });
    const source = await client.customers.createSource(customer.id, {
      source: (await client.tokens.create({ card: { number: '4242424242424242', exp_month: '8', exp_year: year, name: marker } })).id,
      metadata: { marker },
    });
    const endpoint = await client.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hook', enabled_events: ['customer.created'], description: marker });
    const cardholder = await client.issuing.cardholders.create({
      name: 'Jenny Rosen',
      email: 'owner@example.test',
      billing: { address: { line1: marker, city: 'San Francisco', state: 'CA', postal_code: '94111', country: 'US' } },
    });
    const card = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual', status: 'active', metadata: { marker } });
    const authorization = await client.testHelpers.issuing.authorizations.create({
      card: card.id,
      amount: 1_000,
      merchant_data: { category: 'taxicabs_limousines' },
    });
    const captured = await client.testHelpers.issuing.authorizations.capture(
      (await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 500 })).id,
    );
    const transaction = await client.issuing.transactions.update(captured.transactions[0]!.id, { metadata: { marker } });
    const token = await client.tokens.create({ card: { number: '4242424242424242', exp_month: '8', exp_year: year, name: marker } });
    const meter = await client.billing.meters.create({ display_name: marker, event_name: 'isolation_calls', default_aggregation: { formula: 'sum' } });
    await client.v2.billing.meterEvents.create({
      event_name: 'isolation_calls',
      identifier: 'isolation-1',
      payload: { service_customer_id: customer.id, value: '1' },
    });
    const alert = await client.billing.alerts.create({
      alert_type: 'usage_threshold',
      title: marker,
      usage_threshold: { gte: 1_000_000_000, meter: meter.id, recurrence: 'one_time', filters: [{ type: 'customer', customer: customer.id }] },
    });
    const adjustment = await client.v2.billing.meterEventAdjustments.create({
      event_name: 'isolation_calls',
      type: 'cancel',
      cancel: { identifier: 'isolation-1' },
    });
    const product = await client.products.create({ name: marker });
    const price = await client.prices.create({ product: product.id, unit_amount: 1500, currency: 'usd', recurring: { interval: 'month' } });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], metadata: { marker } });
    const testClock = await client.testHelpers.testClocks.create({ frozen_time: 1_893_456_000, name: marker });
    const invoice = await client.invoices.create({ customer: customer.id, auto_advance: false, metadata: { marker } });
    const invoiceItem = await client.invoiceItems.create({ customer: customer.id, invoice: invoice.id, amount: 700, currency: 'usd', metadata: { marker } });
    const destination = await client.v2.core.eventDestinations.create({
      name: marker,
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.account.created'],
      webhook_endpoint: { url: 'http://127.0.0.1:9/thin' },
    });
    const account = await client.v2.core.accounts.create({ display_name: marker, contact_email: 'owner@example.test', metadata: { marker } });
    const person = await client.v2.core.accounts.persons.create(account.id, { given_name: marker, surname: 'Hopper' });
    const accountToken = await client.v2.core.accountTokens.create({ display_name: marker });
    const personToken = await client.v2.core.accounts.personTokens.create(account.id, { given_name: marker });
    connected = account.id;
    const snapshotEvent = (await client.events.list({ type: 'customer.created', limit: 1 })).data[0]!;
    const thinEvent = await eventually(async () => (await client.v2.core.events.list({ object_id: account.id } as never)).data[0]);
    Object.assign(ids, {
      customer: customer.id,
      source: source.id,
      webhookEndpoint: endpoint.id,
      cardholder: cardholder.id,
      card: card.id,
      authorization: authorization.id,
      transaction: transaction.id,
      token: token.id,
      meter: meter.id,
      alert: alert.id,
      adjustment: adjustment.id,
      product: product.id,
      price: price.id,
      subscription: subscription.id,
      testClock: testClock.id,
      subscriptionItem: subscription.items.data[0]!.id,
      invoice: invoice.id,
      invoiceItem: invoiceItem.id,
      destination: destination.id,
      account: account.id,
      person: person.id,
      accountToken: accountToken.id,
      personToken: personToken.id,
      snapshotEvent: snapshotEvent.id,
      thinEvent: thinEvent!.id,
    });
    // The destination's delivery of the account's event fails (nothing listens there): wait until its retries are
    // spent, so that its delivery list stays as it is from here on.
    await eventually(async () => {
      const pending = await call('GET', `/v2/service/event_destinations/${destination.id}/deliveries?status=pending`, { key: owner.secret_key });
      const failed = await call('GET', `/v2/service/event_destinations/${destination.id}/deliveries?status=failed`, { key: owner.secret_key });
      return pending.body.data.length === 0 && failed.body.data.length > 0 ? true : undefined;
    }, 60_000);
    for (const route of routes.filter((candidate) => candidate.method === 'GET' && addressed.includes(candidate))) {
      const { path } = requestFor(route);
      snapshots.set(path, JSON.stringify((await call('GET', path, { key: owner.secret_key })).body));
    }
  }, 120_000);

  it('has an owner object for every path parameter of every route (a new route needs one here)', () => {
    const unmapped = addressed.flatMap((route) =>
      [...route.path.matchAll(/\{(\w+)\}/g)].filter(([, param]) => !idFor(route, param!)).map(([, param]) => `${route.name} {${param}}`),
    );
    expect(unmapped).toEqual([]);
  });

  it('answers every addressed route with 404 to another platform and to the owner’s other mode, leaking nothing', async () => {
    const outcomes: string[] = [];
    const linkRoutes = routes.filter((candidate) => candidate.name === 'createAccountLink' || candidate.name === 'createV1AccountLink');
    for (const route of [...addressed, ...linkRoutes]) {
      const { path, options } = requestFor(route);
      for (const [who, key] of [
        ['stranger', stranger.secret_key],
        ['other mode', ownerLive.secret_key],
      ] as const) {
        const answer = await call(route.method, path, { ...options, key });
        const text = JSON.stringify(answer.body);
        // Test helpers refuse live mode before they look anything up: that is a 4xx too, and says nothing.
        const allowed = who === 'other mode' && route.path.startsWith('/v1/test_helpers/') ? [400, 403, 404] : [404];
        if (!allowed.includes(answer.status)) outcomes.push(`${route.method} ${route.path} as ${who}: ${answer.status} ${text.slice(0, 200)}`);
        if (text.includes(marker)) outcomes.push(`${route.method} ${route.path} as ${who}: the owner's data in the answer`);
        if (answer.status === 404 && !['resource_missing', 'not_found'].includes(answer.body.error?.code))
          outcomes.push(`${route.method} ${route.path} as ${who}: code ${answer.body.error?.code}`);
      }
    }
    expect(outcomes).toEqual([]);
  }, 120_000);

  it('refuses the owner’s publishable key everywhere but token creation', async () => {
    const outcomes: string[] = [];
    const publishableRoutes = ['createToken', 'createAccountToken', 'createPersonToken', 'createMeterEventStream'];
    for (const route of routes.filter((candidate) => !keyless(candidate) && !publishableRoutes.includes(candidate.name))) {
      const { path, options } = requestFor(route);
      const answer = await call(route.method, path, { ...options, key: owner.publishable_key });
      if (answer.status !== 403 || answer.body.error?.code !== 'secret_key_required')
        outcomes.push(`${route.method} ${route.path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 160)}`);
      if (JSON.stringify(answer.body).includes(marker)) outcomes.push(`${route.method} ${route.path}: the owner's data in the answer`);
    }
    expect(outcomes).toEqual([]);
  }, 120_000);

  it('shows another platform none of the owner’s objects in any list', async () => {
    const lists = routes.filter((route) => route.method === 'GET' && !route.path.includes('{'));
    expect(lists.length).toBeGreaterThan(10);
    for (const route of lists) {
      for (const key of [stranger.secret_key, ownerLive.secret_key]) {
        const answer = await call('GET', route.path, { key });
        const text = JSON.stringify(answer.body);
        expect(answer.status, `${route.path}: ${text.slice(0, 200)}`).toBeLessThan(500);
        expect(text.includes(marker), route.path).toBe(false);
        for (const id of Object.values(ids)) expect(text.includes(id), `${route.path} shows ${id}`).toBe(false);
      }
    }
  }, 120_000);

  it('lets no other platform, and no key of the other mode, act inside the owner’s connected account', async () => {
    const foreign = await call('GET', '/v1/customers', { key: stranger.secret_key, headers: { 'service-context': connected } });
    const otherMode = await call('GET', '/v1/customers', { key: ownerLive.secret_key, headers: { 'service-context': connected } });
    const own = await call('GET', '/v1/customers', { key: owner.secret_key, headers: { 'service-context': connected } });
    for (const answer of [foreign, otherMode]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error).toMatchObject({ code: 'account_invalid' });
    }
    expect(own.status).toBe(200);
  });

  it('leaves every owner object as it was', async () => {
    for (const [path, before] of snapshots) {
      const after = JSON.stringify((await call('GET', path, { key: owner.secret_key })).body);
      expect(after, path).toBe(before);
    }
  }, 60_000);
});
