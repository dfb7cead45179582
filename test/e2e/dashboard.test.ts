import { request as httpRequest } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { newPlatform, sdk, stack } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { eventually } from '../support/wait.ts';

/**
 * The local dashboard in Chromium, on a platform of its own (added through the dashboard's own form): events
 * arriving live, a failed delivery sent again once its receiver is fixed, the usage chart's data points, an
 * onboarding link opened from the accounts view, and the walls around it (other platforms, other sites).
 */
describe('the local dashboard in a browser', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let platform: { account: string; secret_key: string };
  let client: Stripe;
  let healthy: WebhookReceiver;
  let failing: WebhookReceiver;
  const base = () => `${stack.baseUrl}/dashboard/${platform.account}/test`;

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
    [healthy, failing, browser] = await Promise.all([startWebhookReceiver(), startWebhookReceiver(), launchChromium()]);
    context = await browser.newContext();
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await healthy?.stop();
    await failing?.stop();
  });

  it('opens on the default platform, and lists a platform added by its secret key in the switcher', async () => {
    // Given the dashboard opened at its root
    await page.goto(`${stack.baseUrl}/dashboard`);
    // Then it shows the default platform's events, in test mode
    expect(page.url()).toBe(`${stack.baseUrl}/dashboard/${stack.defaultPlatform.account}/test/events`);
    await expect(page.locator('#platform-switcher summary').textContent()).resolves.toContain(`${stack.defaultPlatform.account} (default)`);

    // When the developer adds another platform with one of its secret keys
    await page.locator('#platform-switcher summary').click();
    await page.getByRole('link', { name: 'Add a platform…' }).click();
    await page.getByLabel('Secret key').fill(platform.secret_key);
    await Promise.all([page.waitForURL(`${base()}/events`), page.getByRole('button', { name: 'Add' }).click()]);

    // Then its view opens, and the switcher lists both
    await expect(page.locator('#platform-switcher summary').textContent()).resolves.toContain(platform.account);
    const listed = await page.locator('#platform-switcher li a').allTextContents();
    expect(listed).toEqual(expect.arrayContaining([`${stack.defaultPlatform.account} (default)`, platform.account]));
    // and no key is in any address
    expect(page.url()).not.toContain('sk_');
  });

  it('shows new snapshot and thin events as they happen, without reloading, and filters them', async () => {
    // Given the platform's events view
    await page.goto(`${base()}/events`);
    const marker = await page.evaluate(() => {
      (globalThis as unknown as { marker: string }).marker = 'same page';
      return 'same page';
    });

    // When a customer and a v2 account are created
    const customer = await client.customers.create({ name: 'Live <b>Ada</b>' });
    const account = await client.v2.core.accounts.create({ display_name: 'Live Acme', configuration: { customer: {} } });

    // Then both kinds of event appear in their columns on the same page
    await page.locator('#snapshot-events tr', { hasText: customer.id }).waitFor({ timeout: 15_000 });
    await page.locator('#thin-events tr', { hasText: account.id }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe(marker);
    await expect(page.locator('#snapshot-events tr', { hasText: customer.id }).textContent()).resolves.toContain('customer.created');
    await expect(page.locator('#thin-events tr', { hasText: account.id }).textContent()).resolves.toContain('v2.core.account.created');

    // When filtered by type, only that type is left, thin and snapshot alike
    await page.getByLabel('Type').fill('customer.created');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=customer.created/);
    expect(await page.locator('#snapshot-events tbody tr').count()).toBeGreaterThan(0);
    for (const text of await page.locator('#snapshot-events tbody tr').allTextContents()) expect(text).toContain('customer.created');
    expect(await page.locator('#thin-events tbody tr').count()).toBe(0);

    // and filtered by object, only that object's events are left
    await page.goto(`${base()}/events?object=${account.id}`);
    expect(await page.locator('#snapshot-events tbody tr').count()).toBe(0);
    await expect(page.locator('#thin-events tbody').textContent()).resolves.toContain(account.id);
  });

  it('shows a failing endpoint’s failed delivery, and a resend succeeds once the receiver is fixed', async () => {
    // Given a healthy and a failing v1 endpoint
    failing.failNext(1_000, 503);
    const broken = await client.webhookEndpoints.create({ url: failing.url, enabled_events: ['customer.created'] });
    const fine = await client.webhookEndpoints.create({ url: healthy.url, enabled_events: ['customer.created'] });
    // When a customer is created and the failing endpoint's retries run out
    const customer = await client.customers.create({ name: 'Delivered twice' });
    const [event] = (await client.events.list({ type: 'customer.created', limit: 1 })).data;
    expect(event!.data.object).toMatchObject({ id: customer.id });
    await eventually(async () => {
      const answer = await fetch(`${stack.baseUrl}/v2/service/webhook_endpoints/${broken.id}/deliveries?status=failed`, {
        headers: { authorization: `Bearer ${platform.secret_key}` },
      });
      return ((await answer.json()) as { data: unknown[] }).data.length > 0 ? true : undefined;
    }, 30_000);

    // Then the deliveries view shows one endpoint failing and one healthy
    await page.goto(`${base()}/deliveries`);
    const brokenRow = page.locator(`#targets tr[data-target="${broken.id}"]`);
    await expect(brokenRow.locator('.rate').textContent()).resolves.toContain('0%');
    await expect(brokenRow.textContent()).resolves.toContain('HTTP 503');
    await expect(page.locator(`#targets tr[data-target="${fine.id}"] .rate`).textContent()).resolves.toContain('100%');

    // When the failing endpoint is opened: its failed delivery, every attempt with status, latency and the answer
    await brokenRow.getByRole('link', { name: broken.id }).click();
    const failed = page.locator('tr[data-status="failed"]', { hasText: event!.id });
    await failed.locator('summary').click();
    const attempts = await failed.locator('.attempts li').allTextContents();
    expect(attempts.length).toBe(4);
    for (const attempt of attempts) expect(attempt).toMatch(/failed\s+HTTP 503 in \d+ ms\s*not now/);

    // and the event from there: its payload and its deliveries
    await failed.getByRole('link', { name: 'customer.created' }).click();
    await page.waitForURL(`${base()}/events/${event!.id}`);
    await expect(page.locator('pre.json').first().textContent()).resolves.toContain(customer.id);
    await expect(page.locator(`#event-deliveries tr[data-status="succeeded"]`).textContent()).resolves.toContain(fine.id);

    // When the receiver is fixed and the failed delivery is sent again
    failing.failNext(0);
    await page.locator('#event-deliveries tr[data-status="failed"]').getByRole('button', { name: 'Resend' }).click();
    await page.locator('#resend-result', { hasText: `Sent again to ${broken.id}` }).waitFor();

    // Then a new delivery to that endpoint appears on the page and succeeds
    const resent = page.locator('#event-deliveries tr[data-status="succeeded"]', { hasText: broken.id });
    await resent.waitFor({ timeout: 20_000 });
    await expect(resent.textContent()).resolves.toContain('resend');
    expect(failing.received.map((request) => JSON.parse(request.body).id)).toContain(event!.id);
  });

  it('charts a customer’s usage from the event summaries, lists error reports with their samples and a stream session’s throughput', async () => {
    // Given a meter, a customer's usage (three API events and a stream of 20), and an event for no customer
    const meter = await client.billing.meters.create({
      display_name: 'Dashboard calls',
      event_name: 'dashboard_calls',
      default_aggregation: { formula: 'sum' },
    });
    const customer = await client.customers.create({ name: 'Metered' });
    for (const value of ['3', '4', '5']) {
      await client.v2.billing.meterEvents.create({ event_name: 'dashboard_calls', payload: { service_customer_id: customer.id, value } });
    }
    const session = await client.v2.billing.meterEventSession.create();
    await sdk(session.authentication_token).v2.billing.meterEventStream.create({
      events: Array.from({ length: 20 }, () => ({ event_name: 'dashboard_calls', payload: { service_customer_id: customer.id, value: '1' } })),
    });
    await client.v2.billing.meterEvents.create({
      event_name: 'dashboard_calls',
      payload: { service_customer_id: 'cus_nobody', value: '1' },
      identifier: 'dash-ghost',
    });

    // When the meter's usage is charted for that customer, by hour
    const expected = 3 + 4 + 5 + 20;
    let charted: number[] = [];
    const values = await eventually(async () => {
      await page.goto(`${base()}/metering/${meter.id}?customer=${customer.id}&window=hour`);
      await page.waitForFunction(() => (globalThis as unknown as { Chart?: { getChart(id: string): unknown } }).Chart?.getChart('usage-chart') !== undefined);
      const points = await page.evaluate(
        () =>
          (globalThis as unknown as { Chart: { getChart(id: string): { data: { datasets: Array<{ data: number[] }> } } } }).Chart.getChart('usage-chart').data
            .datasets[0]!.data,
      );
      charted = points;
      return points.reduce((sum, value) => sum + value, 0) === expected ? points : undefined;
    }, 30_000).catch((error) => {
      throw new Error(`The chart never showed ${expected}: ${JSON.stringify(charted)}`, { cause: error });
    });

    // Then the chart has 24 hourly points, the usage in the current hour and nothing before
    expect(values).toHaveLength(24);
    expect(values.at(-1)).toBe(expected);
    expect(values.slice(0, -1).every((value) => value === 0)).toBe(true);

    // and the metering view lists the meter, the error report with its sample, and the stream session's throughput
    const report = await eventually(async () => {
      await page.goto(`${base()}/metering`);
      return (await page.locator('#error-reports').count()) > 0 && (await page.content()).includes('dash-ghost')
        ? page.locator('#error-reports').textContent()
        : undefined;
    }, 30_000);
    expect(report).toContain('meter_event_customer_not_found');
    expect(report).toContain("No customer with id 'cus_nobody'");
    await expect(page.locator(`#meters tr[data-meter="${meter.id}"]`).textContent()).resolves.toContain('dashboard_calls');
    const sessionRow = page.locator(`#stream-sessions tr[data-session="${session.id}"]`);
    await expect(sessionRow.locator('.events-accepted').textContent()).resolves.toBe('20');
  });

  it('shows accounts with configurations, capabilities, what is due and persons, and opens an onboarding link', async () => {
    // Given a merchant account with a person
    const account = await client.v2.core.accounts.create({
      display_name: 'Dashboard Merchant',
      identity: { country: 'US', entity_type: 'individual' },
      configuration: { merchant: { capabilities: { card_payments: { requested: true } } } },
    });
    await client.v2.core.accounts.persons.create(account.id, { given_name: 'Jenny', surname: 'Rosen', relationship: { representative: true } });

    // When the accounts view is opened
    await page.goto(`${base()}/accounts`);
    const card = page.locator(`article[data-account="${account.id}"]`);

    // Then the account shows its configuration, the capability's status, what is currently due and its person
    const text = await card.textContent();
    expect(text).toContain('Dashboard Merchant');
    expect(text).toMatch(/merchant\s*applied/);
    expect(text).toMatch(/card_payments\s*restricted/);
    expect(text).toContain('configuration.merchant.mcc');
    expect(text).toContain('Jenny Rosen');

    // When "Onboarding link" is pressed, the hosted onboarding page opens in a new tab
    const [hosted] = await Promise.all([context.waitForEvent('page'), card.getByRole('button', { name: 'Onboarding link' }).click()]);
    await hosted.waitForLoadState();
    expect(hosted.url()).toMatch(new RegExp(`^${stack.baseUrl}/hosted/account_links/`));
    await expect(hosted.locator('h1').textContent()).resolves.toBeTruthy();
    await hosted.close();
  });

  it('shows the clock, and keys masked until revealed', async () => {
    await page.goto(`${base()}/time`);
    await expect(page.locator('#clock-now').textContent()).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    await expect(page.getByRole('button', { name: 'Advance' }).isVisible()).resolves.toBe(true);

    await page.goto(`${base()}/keys`);
    const masked = await page.locator('#key-test').textContent();
    expect(masked).toBe(`sk_test_…${platform.secret_key.slice(-4)}`);
    expect(await page.content()).not.toContain(platform.secret_key);
    await page.locator('button.reveal[data-mode="test"]').click();
    await page.locator('#key-test', { hasText: platform.secret_key }).waitFor();
  });

  it('lists the test clocks with their status, creates one and advances it a day until it is ready', async () => {
    // Given a test clock of the platform
    const clock = await client.testHelpers.testClocks.create({ frozen_time: 1_893_456_000, name: 'Dashboard clock' });
    await page.goto(`${base()}/time`);
    const row = page.locator(`#test-clocks tr[data-test-clock="${clock.id}"]`);
    await expect(row.textContent()).resolves.toContain('Dashboard clock');
    await expect(row.textContent()).resolves.toContain('ready');

    // When the developer advances it by a day from the dashboard
    await row.locator('button[data-test-clock-advance="1d"]').click();

    // Then the clock reaches its new time
    const advanced = await eventually(async () => {
      const read = await client.testHelpers.testClocks.retrieve(clock.id);
      return read.status === 'ready' && read.frozen_time === 1_893_456_000 + 86_400 ? read : undefined;
    }, 30_000);
    expect(advanced.frozen_time).toBe(1_893_542_400);
    await page.locator('#test-clock-result', { hasText: clock.id }).waitFor();

    // And a new clock can be made there, at the stack's time
    const before = (await client.testHelpers.testClocks.list({ limit: 100 })).data.length;
    await page.goto(`${base()}/time`);
    await page.locator('#test-clock-create').click();
    // (the page says "Created" for a moment and reloads: the facts are the new clock and its row after the reload)
    const made = await eventually(async () => {
      const clocks = (await client.testHelpers.testClocks.list({ limit: 100 })).data;
      return clocks.length === before + 1 ? clocks[0] : undefined;
    });
    await page.locator(`#test-clocks tr[data-test-clock="${made.id}"]`).waitFor();
  });

  it('never shows another platform’s objects, and has no view of a mode it holds no key for', async () => {
    // Given another platform's event, meter and account
    const other = sdk((await newPlatform()).secret_key);
    const otherCustomer = await other.customers.create({ name: 'Not yours' });
    const ourMeter = await client.billing.meters.create({ display_name: 'Ours', event_name: 'ours', default_aggregation: { formula: 'sum' } });
    const [otherEvent] = (await other.events.list({ limit: 1 })).data;
    const otherMeter = await other.billing.meters.create({ display_name: 'Theirs', event_name: 'theirs', default_aggregation: { formula: 'sum' } });

    // Then under this platform's view they are not found
    for (const path of [`/events/${otherEvent!.id}`, `/metering/${otherMeter.id}`, `/metering/${ourMeter.id}?customer=${otherCustomer.id}`]) {
      const answer = await page.goto(`${base()}${path}`);
      expect(answer?.status(), path).toBe(404);
      expect(await page.content()).not.toContain('Not yours');
    }
    // and a platform the dashboard was never given is not shown at all
    const unknown = await page.goto(`${stack.baseUrl}/dashboard/${(await newPlatform()).account}/test/events`);
    expect(unknown?.status()).toBe(404);
    // and live mode, with no live key known, says so instead of showing anything
    const live = await page.goto(`${stack.baseUrl}/dashboard/${platform.account}/live/events`);
    expect(live?.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBe('No live key for this platform');
  });

  it('answers only to loopback names, takes actions only as JSON from its own pages, and runs no inline script', async () => {
    // A request under a name another site controls (DNS rebinding)
    const foreign = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${base()}/keys`, { headers: { host: 'dashboard.example.com' } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', reject);
      request.end();
    });
    expect(foreign).toBe(403);

    // A post another site's page could make: a form, or JSON from a foreign origin
    const reveal = `${base()}/actions/reveal-key`;
    const form = await fetch(reveal, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'mode=test' });
    expect(form.status).toBe(415);
    const crossSite = await fetch(reveal, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{"mode":"test"}',
    });
    expect(crossSite.status).toBe(415);
    expect(await crossSite.text()).not.toContain(platform.secret_key);
    expect(crossSite.headers.get('access-control-allow-origin')).toBeNull();

    // Every page forbids inline scripts and framing
    const pageAnswer = await fetch(`${base()}/events`);
    expect(pageAnswer.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(pageAnswer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await pageAnswer.text()).not.toMatch(/<script(?![^>]*(src="\/dashboard\/assets\/|type="application\/json"))/);

    // A method a page does not take is 405, naming the ones it does
    const put = await fetch(`${base()}/events`, { method: 'PUT' });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST']);
    const postToPage = await fetch(`${base()}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect([postToPage.status, postToPage.headers.get('allow')]).toEqual([405, 'GET, HEAD']);

    // A malformed id never reaches the API
    const long = await fetch(`${base()}/events/${'x'.repeat(3_000)}`);
    expect(long.status).toBe(404);
  });
  it("shows a customer's billing: the customers list, then its subscriptions, upcoming invoice and invoices", async () => {
    // Given a customer with a subscription, a finalized invoice and a pending invoice item
    const customer = await client.customers.create({ name: 'Billed <i>Bo</i>', email: 'bo@example.test' });
    const product = await client.products.create({ name: 'Dashboard plan' });
    const price = await client.prices.create({ product: product.id, unit_amount: 1200, currency: 'jpy', recurring: { interval: 'month' } });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    await client.invoiceItems.create({ customer: customer.id, amount: 300, currency: 'usd', description: 'Setup' });
    const invoice = await client.invoices.create({ customer: customer.id, pending_invoice_items_behavior: 'include', auto_advance: false });
    const finalized = await client.invoices.finalizeInvoice(invoice.id!);
    await client.invoiceItems.create({ customer: customer.id, amount: 450, currency: 'usd', description: 'Next month extra' });

    // When the developer opens Customers, then the customer
    await page.goto(`${base()}/customers`);
    await expect(page.locator('#customers').textContent()).resolves.toContain('Billed <i>Bo</i>');
    await page.getByRole('link', { name: 'Billed <i>Bo</i>' }).click();

    // Then its page lists the subscription, the finalized invoice by number, and the pending item's upcoming invoice
    await expect(page.locator(`#subscriptions tr[data-subscription="${subscription.id}"]`).textContent()).resolves.toContain('¥1,200');
    await expect(page.locator(`#invoices tr[data-invoice="${invoice.id}"]`).textContent()).resolves.toContain(finalized.number!);
    await expect(page.locator('#upcoming-invoice').textContent()).resolves.toContain('$4.50');
  });

  it("shows a metered customer's usage this period next to its cost, and an invoice's usage line linked to the meter's chart", async () => {
    // Given a customer with a card on a test clock, subscribed to a metered price of 50 per unit, with usage 3 + 4
    const meter = await client.billing.meters.create({
      display_name: 'Dashboard API calls',
      event_name: 'dash_billed_calls',
      default_aggregation: { formula: 'sum' },
    });
    const start = Math.floor(Date.now() / 1000);
    const clock = await client.testHelpers.testClocks.create({ frozen_time: start });
    const customer = await client.customers.create({ name: 'Metered Mo', source: 'tok_visa', test_clock: clock.id });
    const price = await client.prices.create({
      product_data: { name: 'API calls' },
      currency: 'usd',
      unit_amount: 50,
      recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
    });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    for (const value of ['3', '4']) {
      await client.v2.billing.meterEvents.create({ event_name: 'dash_billed_calls', payload: { service_customer_id: customer.id, value } });
    }
    // (an event the request could not count at once, such as one whose customer it could not see yet, is counted by the worker)
    await eventually(async () => {
      const summaries = await client.billing.meters.listEventSummaries(meter.id, {
        customer: customer.id,
        start_time: Math.floor(start / 60) * 60,
        end_time: (Math.floor(Date.now() / 60_000) + 1) * 60,
      });
      return summaries.data[0]?.aggregated_value === 7 ? true : undefined;
    }, 30_000);

    // When the developer opens the customer's page mid-period
    await page.goto(`${base()}/customers/${customer.id}`);

    // Then the metered item shows 7 used so far and $3.50 on the upcoming invoice, linked to the meter's chart
    const row = page.locator(`#usage-this-period tr[data-item="${subscription.items.data[0]!.id}"]`);
    await expect(row.locator('.usage').textContent()).resolves.toBe('7');
    await expect(row.locator('.cost').textContent()).resolves.toBe('$3.50');
    await expect(row.getByRole('link', { name: meter.id }).getAttribute('href')).resolves.toContain(`/metering/${meter.id}?customer=${customer.id}`);

    // And once the clock passes the period and its invoice's grace, that invoice's usage line links to the chart
    await client.testHelpers.testClocks.advance(clock.id, { frozen_time: start + 32 * 86_400 });
    await eventually(async () => ((await client.testHelpers.testClocks.retrieve(clock.id)).status === 'ready' ? true : undefined), 120_000);
    await page.goto(`${base()}/customers/${customer.id}`);
    const usageLine = page.locator('#invoices .usage-lines li').first();
    await expect(usageLine.textContent()).resolves.toContain('$3.50');
    await usageLine.getByRole('link').click();
    await page.waitForFunction(() => (globalThis as unknown as { Chart?: { getChart(id: string): unknown } }).Chart?.getChart('usage-chart') !== undefined);
    const total = await page.evaluate(() =>
      (globalThis as unknown as { Chart: { getChart(id: string): { data: { datasets: Array<{ data: number[] }> } } } }).Chart.getChart(
        'usage-chart',
      ).data.datasets[0]!.data.reduce((sum, value) => sum + value, 0),
    );
    expect(total).toBe(7);
  });

  it("shows a paying customer's upcoming invoice as its subscription's next period with the pending items", async () => {
    // Given a customer with a card, a monthly subscription paid on creation and a pending invoice item
    const customer = await client.customers.create({ name: 'Renewing Ro', source: 'tok_visa' });
    const price = await client.prices.create({ product_data: { name: 'Renewing plan' }, unit_amount: 2000, currency: 'usd', recurring: { interval: 'month' } });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    expect(subscription.status).toBe('active');
    await client.invoiceItems.create({ customer: customer.id, amount: 450, currency: 'usd', description: 'Extra seat' });

    // When the developer opens the customer's page
    await page.goto(`${base()}/customers/${customer.id}`);

    // Then the upcoming invoice is the renewal's $20.00 and the item's $4.50, for the period after the current one
    const upcoming = await page.locator('#upcoming-invoice').textContent();
    expect(upcoming).toContain('$24.50');
    expect(upcoming).toContain('Extra seat');
  });
});
