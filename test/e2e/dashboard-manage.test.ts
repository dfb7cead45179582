import type { Browser, Page } from 'playwright-core';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollApiKey } from '#shared/platform/platform-service.ts';
import { launchChromium } from '../support/browser.ts';
import { newPlatform, platformStore, sdk, stack } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * What is wrong with the layout of the page in the browser (run there: the project's types have no DOM): a
 * cell whose content overflows it, a word (a run of letters and digits) laid out on two lines, a table wider
 * than its container, a page that scrolls sideways, content capped well short of a wide window.
 */
const layoutProblems = `(() => {
  const issues = [];
  const describe = (element) => (element.closest('table')?.id || element.closest('table')?.className || 'table') + ' "' + (element.textContent ?? '').trim().slice(0, 60) + '"';
  for (const cell of document.querySelectorAll('main td, main th')) {
    if (!cell.offsetParent) continue;
    if (cell.scrollWidth > cell.clientWidth + 1) issues.push('overflows its cell (' + cell.scrollWidth + ' > ' + cell.clientWidth + '): ' + describe(cell));
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of (node.nodeValue ?? '').matchAll(/[A-Za-z0-9]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.bottom)));
        if (lines.size > 1) issues.push('breaks "' + match[0] + '" mid-word: ' + describe(cell));
      }
    }
  }
  for (const table of document.querySelectorAll('main table')) {
    if (table.offsetParent && table.getBoundingClientRect().right > table.parentElement.getBoundingClientRect().right + 1)
      issues.push('table ' + (table.id || table.className) + ' is wider than its container');
  }
  if (document.documentElement.scrollWidth > window.innerWidth) issues.push('the page scrolls sideways (' + document.documentElement.scrollWidth + ' > ' + window.innerWidth + ')');
  const main = document.querySelector('main').getBoundingClientRect();
  if (window.innerWidth >= 1440 && main.width < window.innerWidth * 0.85) issues.push('the content is capped at ' + Math.round(main.width) + ' px');
  return issues;
})()`;

/**
 * The local dashboard managing what it shows, in Chromium, on a platform of its own: customers with their
 * sources, products and prices, endpoints and destinations created, disabled, enabled and deleted, the request
 * log, a rolled platform kept in the switcher, and every page laid out without overflowing cells at the
 * common screen widths.
 */
describe('the local dashboard manages what it shows', () => {
  let browser: Browser;
  let page: Page;
  let platform: { account: string; secret_key: string };
  let client: Stripe;
  let receiver: WebhookReceiver;
  const base = () => `${stack.baseUrl}/dashboard/${platform.account}/test`;

  /** Adds a platform to the dashboard by its secret key, through the dashboard's own form. */
  async function addPlatform(secretKey: string, account: string) {
    await page.goto(`${stack.baseUrl}/dashboard/${stack.defaultPlatform.account}/test/keys`);
    await page.getByLabel('Secret key').fill(secretKey);
    await Promise.all([page.waitForURL(`${stack.baseUrl}/dashboard/${account}/test/events`), page.getByRole('button', { name: 'Add' }).click()]);
  }

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
    [receiver, browser] = await Promise.all([startWebhookReceiver(), launchChromium()]);
    page = await (await browser.newContext()).newPage();
    await addPlatform(platform.secret_key, platform.account);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
  });

  it("shows a customer's payment sources, the default one marked, beside its subscriptions", async () => {
    // Given a customer with two cards, the first its default
    const customer = await client.customers.create({ name: 'Sourced Sam', source: 'tok_visa' });
    const second = await client.customers.createSource(customer.id, { source: 'tok_mastercard' });

    // When its page is opened
    await page.goto(`${base()}/customers/${customer.id}`);

    // Then both cards are listed with brand and last four, the default one marked
    const first = page.locator(`#sources tr[data-source="${((await client.customers.retrieve(customer.id)) as Stripe.Customer).default_source}"]`);
    await expect(first.textContent()).resolves.toMatch(/Visa ending 4242.*default|default.*Visa ending 4242/s);
    await expect(page.locator(`#sources tr[data-source="${second.id}"]`).textContent()).resolves.toContain('MasterCard ending 4444');
    await expect(page.locator(`#sources tr[data-source="${second.id}"]`).textContent()).resolves.not.toContain('default');
  });

  it('lists products with their prices, and a product’s page lists every price with what it charges', async () => {
    // Given a product with a monthly price, its default, and a one-time price
    const created = await client.products.create({ name: 'Catalog <b>Pro</b>' });
    const monthly = await client.prices.create({ product: created.id, currency: 'usd', unit_amount: 1500, recurring: { interval: 'month' } });
    const product = await client.products.update(created.id, { default_price: monthly.id });
    const oneTime = await client.prices.create({ product: product.id, currency: 'eur', unit_amount: 990, nickname: 'Setup fee' });

    // When Products is opened from the navigation
    await page.goto(`${base()}/events`);
    await page.getByRole('link', { name: 'Products', exact: true }).click();
    const row = page.locator(`#products tr[data-product="${product.id}"]`);

    // Then the product is listed, its name escaped, with both prices
    await expect(row.textContent()).resolves.toContain('Catalog <b>Pro</b>');
    await expect(row.textContent()).resolves.toContain('$15.00 / month');
    await expect(row.textContent()).resolves.toContain('€9.90 one time');

    // and its page lists each price, the default one marked
    await row.getByRole('link', { name: 'Catalog <b>Pro</b>' }).click();
    await expect(page.locator(`tr[data-price="${product.default_price}"]`).textContent()).resolves.toContain('default');
    await expect(page.locator(`tr[data-price="${oneTime.id}"]`).textContent()).resolves.toContain('Setup fee');
  });

  it('creates a v1 endpoint showing its signing secret once, which verifies what it receives; then disables, enables and deletes it', async () => {
    // When the developer creates a v1 endpoint from the Destinations page
    await page.goto(`${base()}/deliveries`);
    await page.locator('#create-destination summary').click();
    const form = page.locator('#create-endpoint-form');
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Events').fill('customer.created');
    await form.getByRole('button', { name: 'Create endpoint' }).click();

    // Then its signing secret is shown, this once
    await page.locator('#created-secret').waitFor();
    const id = (await page.locator('#created-id').textContent())!;
    const secret = (await page.locator('#created-secret-value').textContent())!;
    expect(id).toMatch(/^we_/);
    expect(secret).toMatch(/^whsec_/);
    await expect(page.locator('#secret-notice').textContent()).resolves.toContain('no call that reveals it again or rolls it');

    // and it verifies the signature of what the endpoint receives
    const customer = await client.customers.create({ name: 'Signed for' });
    const [delivery] = await receiver.waitFor(1, 20_000);
    const event = client.webhooks.constructEvent(delivery!.body, delivery!.headers['service-signature'] as string, secret);
    expect(event.data.object).toMatchObject({ id: customer.id });

    // When it is disabled from its row, then enabled again
    await page.goto(`${base()}/deliveries`);
    const row = page.locator(`#targets tr[data-target="${id}"]`);
    await Promise.all([page.waitForEvent('load'), row.getByRole('button', { name: 'Disable' }).click()]);
    await expect(page.locator(`#targets tr[data-target="${id}"] .badge`).first().textContent()).resolves.toBe('disabled');
    expect((await client.webhookEndpoints.retrieve(id)).status).toBe('disabled');
    await Promise.all([page.waitForEvent('load'), page.locator(`#targets tr[data-target="${id}"]`).getByRole('button', { name: 'Enable' }).click()]);
    expect((await client.webhookEndpoints.retrieve(id)).status).toBe('enabled');

    // When it is deleted from its own page (after confirming), the list no longer has it
    await page.goto(`${base()}/deliveries/${id}`);
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL(`${base()}/deliveries`), page.locator('#manage').getByRole('button', { name: 'Delete' }).click()]);
    expect(await page.locator(`#targets tr[data-target="${id}"]`).count()).toBe(0);
    await expect(client.webhookEndpoints.retrieve(id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('creates a v2 destination with its signing secret shown once, disables, enables and deletes it; a refused create says why', async () => {
    // When the developer creates a thin webhook destination
    await page.goto(`${base()}/deliveries`);
    await page.locator('#create-destination summary').click();
    const form = page.locator('#create-destination-form');
    await form.getByLabel('Name').fill('Dashboard destination');
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Events').fill('v2.core.account.created');
    await form.getByRole('button', { name: 'Create destination' }).click();

    // Then its id and signing secret are shown, and the API has it enabled
    await page.locator('#created-secret').waitFor();
    const id = (await page.locator('#created-id').textContent())!;
    expect(await page.locator('#created-secret-value').textContent()).toMatch(/^whsec_/);
    const created = await client.v2.core.eventDestinations.retrieve(id, { include: ['webhook_endpoint.url'] });
    expect([created.status, created.event_payload, created.webhook_endpoint?.url]).toEqual(['enabled', 'thin', receiver.url]);

    // When disabled, then enabled, then deleted from its row
    await page.goto(`${base()}/deliveries`);
    await Promise.all([page.waitForEvent('load'), page.locator(`#targets tr[data-target="${id}"]`).getByRole('button', { name: 'Disable' }).click()]);
    expect((await client.v2.core.eventDestinations.retrieve(id)).status).toBe('disabled');
    await Promise.all([page.waitForEvent('load'), page.locator(`#targets tr[data-target="${id}"]`).getByRole('button', { name: 'Enable' }).click()]);
    expect((await client.v2.core.eventDestinations.retrieve(id)).status).toBe('enabled');
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([page.waitForEvent('load'), page.locator(`#targets tr[data-target="${id}"]`).getByRole('button', { name: 'Delete' }).click()]);
    expect(await page.locator(`#targets tr[data-target="${id}"]`).count()).toBe(0);
    await expect(client.v2.core.eventDestinations.retrieve(id)).rejects.toMatchObject({ statusCode: 404 });

    // A create the API refuses (no such event type) shows the API's message and creates nothing
    await page.locator('#create-destination summary').click();
    await form.getByLabel('Name').fill('Refused');
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Events').fill('no.such.event');
    await form.getByRole('button', { name: 'Create destination' }).click();
    await page.locator('#create-result.error', { hasText: 'Not created' }).waitFor();
    expect(await page.locator('#created-secret').isHidden()).toBe(true);
  });

  it('refuses a change of another platform’s endpoint or a malformed one, changing nothing', async () => {
    const other = sdk((await newPlatform()).secret_key);
    const theirs = await other.webhookEndpoints.create({ url: receiver.url, enabled_events: ['*'] });
    const answer = await page.evaluate(
      async ([url, id]) =>
        (await fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ destination: id, change: 'delete' }) }))
          .status,
      [`${base()}/actions/change-destination`, theirs.id],
    );
    expect(answer).toBe(404);
    expect((await other.webhookEndpoints.retrieve(theirs.id)).status).toBe('enabled');
    const malformed = await page.evaluate(
      async (url) =>
        (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ destination: '../x', change: 'delete' }) }))
          .status,
      `${base()}/actions/change-destination`,
    );
    expect(malformed).toBe(400);
  });

  it("logs the platform's requests with method, path, status, key hint, request id, idempotency key and duration, never the key", async () => {
    // Given a create with an idempotency key, and a refused retrieve, made with the platform's key
    const customer = await client.customers.create({ name: 'Logged' }, { idempotencyKey: 'dash-log-1' });
    await expect(client.customers.retrieve('cus_missing')).rejects.toMatchObject({ statusCode: 404 });
    // and another platform's request
    await sdk((await newPlatform()).secret_key).customers.create({ name: 'Not in this log' });

    // When the request log is opened
    await page.goto(`${base()}/requests`);
    const rows = page.locator('#requests tbody tr');

    // Then the create is there with its status, key hint, request id, idempotency key and duration
    const create = rows.filter({ hasText: 'dash-log-1' });
    const text = (await create.textContent())!;
    expect(text).toContain('POST');
    expect(text).toContain('/v1/customers');
    expect(text).toContain('200');
    expect(text).toContain(`sk_test_…${platform.secret_key.slice(-4)}`);
    expect(text).toMatch(/\d+(\.\d)? ms/);
    const requestId = await create.getAttribute('data-request');
    expect(requestId).toMatch(/^req_/);
    // (the request id is the one the API answered with)
    const { lastResponse } = await client.customers.retrieve(customer.id);
    expect(lastResponse.requestId).toMatch(/^req_/);
    await expect(rows.filter({ hasText: '/v1/customers/cus_missing' }).textContent()).resolves.toContain('404');

    // and nothing of another platform, no full key, none of the dashboard's own reads unless asked
    expect(await page.content()).not.toContain(platform.secret_key);
    expect(await page.locator('#requests').textContent()).not.toContain('Not in this log');
    expect(await page.locator('#requests tr[data-source="dashboard"]').count()).toBe(0);
    await page.getByRole('link', { name: "with the dashboard's own" }).click();
    expect(await page.locator('#requests tr[data-source="dashboard"]').count()).toBeGreaterThan(0);

    // The log itself is local: `/_local/requests` answers loopback callers, a key's own requests when it names one
    const own = (await (await fetch(`${stack.baseUrl}/_local/requests?limit=500`, { headers: { authorization: `Bearer ${platform.secret_key}` } })).json()) as {
      data: Array<{ key: string; request_id: string }>;
    };
    expect(own.data.every((entry) => entry.key === `sk_test_…${platform.secret_key.slice(-4)}`)).toBe(true);
    expect(own.data.map((entry) => entry.request_id)).toContain(requestId);
    expect(JSON.stringify(own)).not.toContain(platform.secret_key);
    expect((await fetch(`${stack.baseUrl}/_local/requests?limit=0`)).status).toBe(400);
    expect((await fetch(`${stack.baseUrl}/_local/requests`, { method: 'DELETE' })).status).toBe(405);
  });

  it('opens a meter on the customer with the most recent usage, not the newest customer', async () => {
    // Given a meter, a customer with usage, then a newer customer without any
    const meter = await client.billing.meters.create({
      display_name: 'Opened on usage',
      event_name: 'opened_on_usage',
      default_aggregation: { formula: 'sum' },
    });
    const user = await client.customers.create({ name: 'Has usage' });
    await client.v2.billing.meterEvents.create({ event_name: 'opened_on_usage', payload: { service_customer_id: user.id, value: '5' } });
    await client.customers.create({ name: 'Newest, no usage' });
    await eventually(async () => {
      const now = Math.floor(Date.now() / 60_000) * 60;
      const summaries = await client.billing.meters.listEventSummaries(meter.id, { customer: user.id, start_time: now - 86_400, end_time: now + 60 });
      return summaries.data[0]?.aggregated_value === 5 ? true : undefined;
    }, 30_000);

    // When the meter's page is opened without naming a customer
    await page.goto(`${base()}/metering/${meter.id}`);

    // Then it shows the customer with usage
    await expect(page.locator('select[name="customer"] option[selected]').getAttribute('value')).resolves.toBe(user.id);
  });

  it('calls the feed indicator auto-refresh, not anything that reads like live mode', async () => {
    await page.goto(`${base()}/events`);
    const indicator = page.locator('#live-status');
    await expect(indicator.textContent()).resolves.toMatch(/^Auto-refresh on/);
    await page.locator('#live-status', { hasText: 'updated' }).waitFor();
    expect(await indicator.textContent()).not.toMatch(/\blive\b/i);
  });

  it('keeps a platform in the switcher after its key is rolled, asks for the new key, and shows it again once added', async () => {
    // Given a platform added to the dashboard
    const rolling = await newPlatform();
    await addPlatform(rolling.secret_key, rolling.account);

    // When its key is rolled (what `npm run admin -- roll-key` does)
    const rolled = await rollApiKey(platformStore(), rolling.secret_key);

    // Then it stays in the switcher, and its pages name the rolled key and ask for the new one
    const events = `${stack.baseUrl}/dashboard/${rolling.account}/test/events`;
    const answer = await eventually(async () => {
      const opened = await page.goto(events);
      return opened?.status() === 404 ? opened : undefined;
    });
    expect(answer.status()).toBe(404);
    expect(await page.locator('#platform-switcher li a').allTextContents()).toContain(rolling.account);
    await expect(page.locator('main').textContent()).resolves.toContain(`sk_test_…${rolling.secret_key.slice(-4)}`);
    await expect(page.locator('main').textContent()).resolves.toContain('rolled or revoked');
    await page.goto(`${stack.baseUrl}/dashboard/${rolling.account}/test/keys`);
    await expect(page.locator('main').textContent()).resolves.toContain(`sk_test_…${rolling.secret_key.slice(-4)} was rolled or revoked`);

    // When the new key is added, the platform's pages work again
    await addPlatform(rolled.key, rolling.account);
    await expect(page.locator('h1').textContent()).resolves.toBe('Events');
  });

  it('lays out every page without an overflowing cell or a word broken in two at 1024, 1280, 1440 and 1920 px', async () => {
    // Given data on every page: events of both kinds, a destination with a delivery, a customer with a source,
    // a subscription and an invoice, a product with prices, a meter with usage, an account, a test clock
    const customer = await client.customers.create({ name: 'Wide Layout Customer', email: 'a.rather.long.address@example.test', source: 'tok_visa' });
    const price = await client.prices.create({ product_data: { name: 'Layout plan' }, currency: 'usd', unit_amount: 2500, recurring: { interval: 'month' } });
    await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    const meter = await client.billing.meters.create({ display_name: 'Layout meter', event_name: 'layout_calls', default_aggregation: { formula: 'sum' } });
    await client.v2.billing.meterEvents.create({ event_name: 'layout_calls', payload: { service_customer_id: customer.id, value: '2' } });
    await client.v2.billing.meterEvents.create({ event_name: 'layout_calls', payload: { service_customer_id: 'cus_nobody', value: '1' } });
    await client.v2.core.accounts.create({
      display_name: 'Layout Merchant',
      identity: { country: 'US', entity_type: 'company' },
      configuration: { merchant: { capabilities: { card_payments: { requested: true } } } },
    });
    const destination = await client.v2.core.eventDestinations.create({
      name: 'Layout destination',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v1.billing.meter.error_report_triggered', 'v2.core.account.created'],
      webhook_endpoint: { url: receiver.url },
    });
    await client.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000), name: 'Layout clock' });
    const [snapshot] = (await client.events.list({ limit: 1 })).data;
    const [product] = (await client.products.list({ limit: 1 })).data;
    const paths = [
      '/events',
      `/events/${snapshot!.id}`,
      '/deliveries',
      `/deliveries/${destination.id}`,
      '/customers',
      `/customers/${customer.id}`,
      '/products',
      `/products/${product!.id}`,
      '/metering',
      `/metering/${meter.id}?customer=${customer.id}`,
      '/requests?source=all',
      '/accounts',
      '/time',
      '/keys',
    ];

    // When each page is shown at each width
    const problems: string[] = [];
    for (const width of [1024, 1280, 1440, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of paths) {
        await page.goto(`${base()}${path}`);
        const found = (await page.evaluate(layoutProblems)) as string[];
        problems.push(...found.map((issue) => `${width} px ${path}: ${issue}`));
      }
    }

    // Then no cell overflows, no word is broken, nothing scrolls sideways and the content uses the width
    expect(problems).toEqual([]);
  }, 300_000);
});
