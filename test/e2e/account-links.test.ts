import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoUpdateSlots } from '#shared/data/account-repository.ts';
import { accountLink } from '#shared/data/keys.ts';
import { launchChromium } from '../support/browser.ts';
import { revokeApiKey } from '#shared/platform/platform-service.ts';
import { api, newPlatform, platformStore, sdk, stack, stackTable } from '../support/stack.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { eventually } from '../support/wait.ts';

const linkTtlMinutes = Number(stack.env.ACCOUNT_LINK_TTL_MINUTES ?? 10);
const updateConcurrency = Number(stack.env.ACCOUNT_UPDATE_CONCURRENCY ?? 4);

/** The platform's own site: where the hosted flow sends people back (return_url) or for a new link (refresh_url). */
interface PlatformSite {
  url: string;
  visits: string[];
  stop(): Promise<void>;
}

async function startPlatformSite(): Promise<PlatformSite> {
  const visits: string[] = [];
  const server: Server = createServer((request, response) => {
    visits.push(request.url ?? '/');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><title>platform ${request.url}</title><h1>Platform page ${request.url}</h1></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, visits, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

const secretOf = (url: string): string => new URL(url).pathname.split('/').pop()!;
const itemKey = (url: string) => ({ PK: accountLink.pk(createHash('sha256').update(secretOf(url)).digest('hex')), SK: accountLink.sk() });

/** What a person with a screen reader or a keyboard relies on, checked on the rendered page. */
async function expectAccessibleForm(page: Page): Promise<void> {
  expect(await page.getAttribute('html', 'lang')).toBe('en');
  expect((await page.title()).length).toBeGreaterThan(0);
  expect(await page.locator('h1').count()).toBe(1);
  expect(await page.locator('script').count()).toBe(0);
  const controls = page.locator('form input:not([type=hidden]), form select, form textarea');
  expect(await controls.count()).toBeGreaterThan(0);
  // Every control has a label the browser associates with it (an accessible name).
  const unlabelled = await controls.evaluateAll((elements) =>
    elements.filter((element: any) => !(element.labels?.length > 0 && element.labels[0].textContent.trim())).map((element: any) => element.outerHTML),
  );
  expect(unlabelled).toEqual([]);
  // Text inputs and selects say what they hold, so browsers can fill them in.
  const noAutocomplete = await page
    .locator('form input[type=text], form input[type=email], form input[type=url], form select')
    .evaluateAll((elements) => elements.filter((element: any) => !element.getAttribute('autocomplete')).map((element: any) => element.id));
  expect(noAutocomplete).toEqual([]);
  // Groups of inputs are fieldsets named by their legend.
  const unnamedGroups = await page
    .locator('fieldset')
    .evaluateAll((elements) => elements.filter((element: any) => !element.querySelector(':scope > legend')?.textContent.trim()).length);
  expect(unnamedGroups).toBe(0);
  const ids = await page.locator('[id]').evaluateAll((elements) => elements.map((element: any) => element.id as string));
  expect(new Set(ids).size).toBe(ids.length);
}

/** Submits the form and waits for wherever the post leads; returns the status of the post's answer. */
async function submit(page: Page): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST' && candidate.url().includes('/hosted/account_links/')),
    page.getByRole('button', { name: 'Continue' }).click(),
  ]);
  await page.waitForLoadState();
  return response.status();
}

async function fillIndividualDetails(page: Page): Promise<void> {
  await page.getByLabel('Legal first name').fill('Ada');
  await page.getByLabel('Legal last name').fill('Lovelace');
  await page.getByLabel('Day').fill('10');
  await page.getByLabel('Month').fill('12');
  await page.getByLabel('Year').fill('1985');
  await page.getByLabel('Email address').fill('ada@example.test');
  await page.getByLabel('Address line 1').fill('12 Analytical Row');
  await page.getByLabel('Town or city').fill('Springfield');
  await page.getByLabel('State, county or province (optional)').fill('IL');
  await page.getByLabel('Postal code').fill('62701');
  await page.getByLabel('Country', { exact: true }).selectOption('US');
}

async function fillMerchantDetails(page: Page): Promise<void> {
  await page.getByLabel('Merchant category code (MCC)').fill('5734');
  await page.getByLabel('Business website').fill('https://ada.example.test');
  await page.getByLabel('I accept the terms of service').check();
}

const merchantAccount = (client: Stripe, identity: Stripe.V2.Core.AccountCreateParams.Identity = { country: 'US', entity_type: 'individual' }) =>
  client.v2.core.accounts.create({
    identity,
    configuration: { merchant: { capabilities: { card_payments: { requested: true } } } },
    include: ['requirements'],
  });

/**
 * The SDK 23.1.0 types leave out `configurations` in a use case, which the spec makes required: the
 * SDK sends it as given, so only the type needs widening.
 */
type LinkParams = Omit<Stripe.V2.Core.AccountLinkCreateParams, 'use_case'> & {
  use_case: { type: 'account_onboarding' | 'account_update'; account_onboarding?: LinkMember; account_update?: LinkMember };
};
type LinkMember = Stripe.V2.Core.AccountLinkCreateParams.UseCase.AccountOnboarding & { configurations: ('customer' | 'merchant' | 'recipient')[] };
const createLinkWithSdk = (client: Stripe, params: LinkParams) => client.v2.core.accountLinks.create(params as Stripe.V2.Core.AccountLinkCreateParams);

const currentlyDue = (account: Stripe.V2.Core.Account) =>
  (account.requirements?.entries ?? []).filter((entry) => entry.minimum_deadline.status === 'currently_due').map((entry) => entry.description);

describe('account links: the hosted onboarding flow in a browser', () => {
  let client: Stripe;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let site: PlatformSite;

  beforeAll(async () => {
    client = sdk((await newPlatform()).secret_key);
    site = await startPlatformSite();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.stop();
  });
  beforeEach(async () => {
    context = await browser.newContext();
    page = await context.newPage();
  });
  afterEach(() => context.close());

  const onboarding = (account: string, options: Partial<LinkMember> = {}) =>
    createLinkWithSdk(client, {
      account,
      use_case: {
        type: 'account_onboarding',
        account_onboarding: { configurations: ['merchant'], refresh_url: `${site.url}/refresh`, return_url: `${site.url}/return`, ...options },
      },
    });

  it('onboards an individual merchant through the form and makes card payments active; the link then only refreshes', async () => {
    // Given a merchant account that still owes its identity, terms and business profile
    const account = await merchantAccount(client);
    expect(currentlyDue(account)).toEqual(
      expect.arrayContaining(['identity.individual.given_name', 'configuration.merchant.mcc', 'identity.attestations.terms_of_service.account']),
    );

    // When the platform creates an onboarding link
    const link = await onboarding(account.id);

    // Then the link points at this service's hosted page and expires after the configured time
    expect(link).toMatchObject({
      object: 'v2.core.account_link',
      account: account.id,
      livemode: false,
      use_case: {
        type: 'account_onboarding',
        account_onboarding: {
          configurations: ['merchant'],
          refresh_url: `${site.url}/refresh`,
          return_url: `${site.url}/return`,
          collection_options: { fields: 'currently_due', future_requirements: 'omit' },
        },
        account_update: null,
      },
    });
    expect(link.url).toMatch(new RegExp(`^${stack.baseUrl}/hosted/account_links/[0-9A-Za-z]{43}$`));
    expect(Date.parse(link.expires_at) - Date.parse(link.created)).toBe(linkTtlMinutes * 60_000);
    // and only the secret's hash is stored
    const stored = await stackTable().get(itemKey(link.url));
    expect(stored).toMatchObject({ account: account.id, state: 'fresh' });
    expect(JSON.stringify(stored)).not.toContain(secretOf(link.url));

    // When the user opens it
    const opened = await page.goto(link.url);
    expect(opened?.status()).toBe(200);
    await expectAccessibleForm(page);
    expect(await page.title()).toBe('Set up your account');
    expect((await stackTable().get(itemKey(link.url)))?.state).toBe('opened');

    // and sends it with a malformed email, a short MCC and no terms accepted
    await fillIndividualDetails(page);
    await page.getByLabel('Email address').fill('ada-at-example');
    await page.getByLabel('Merchant category code (MCC)').fill('57');
    await page.getByLabel('Business website').fill('https://ada.example.test');
    expect(await submit(page)).toBe(400);

    // Then the form comes back with an error summary linking to each invalid field
    expect(await page.title()).toBe('Error: Set up your account');
    const summary = page.getByRole('alert');
    expect(await summary.locator('a').evaluateAll((links) => links.map((anchor: any) => anchor.getAttribute('href')))).toEqual([
      '#email',
      '#mcc',
      '#tos_accepted',
    ]);
    expect(await page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Legal first name').inputValue()).toBe('Ada');
    await expectAccessibleForm(page);

    // When the user corrects them
    await page.getByLabel('Email address').fill('ada@example.test');
    await fillMerchantDetails(page);
    expect(await submit(page)).toBe(303);

    // Then the browser lands on the platform's return_url
    expect(page.url()).toBe(`${site.url}/return`);
    expect((await stackTable().get(itemKey(link.url)))?.state).toBe('completed');

    // and the account owes nothing now, with card payments active
    const after = await client.v2.core.accounts.retrieve(account.id, { include: ['requirements', 'configuration.merchant', 'identity'] });
    expect(currentlyDue(after)).toEqual([]);
    expect(after.configuration?.merchant?.capabilities?.card_payments?.status).toBe('active');
    expect(after.identity?.individual).toMatchObject({
      given_name: 'Ada',
      surname: 'Lovelace',
      email: 'ada@example.test',
      date_of_birth: { day: 10, month: 12, year: 1985 },
    });
    expect(after.identity?.attestations?.terms_of_service?.account).toMatchObject({ ip: '127.0.0.1', user_agent: expect.stringContaining('Chrome') });

    // When the same link is opened again, it sends the user to refresh_url
    await page.goto(link.url);
    expect(page.url()).toBe(`${site.url}/refresh`);
  });

  it('emits v2.core.account_link.returned once when the flow returns, to a thin destination that the SDK verifies', async () => {
    // Given a platform with a thin destination for the returned event, and a merchant account with fields due
    const platform = await newPlatform();
    const own = sdk(platform.secret_key);
    const receiver = await startWebhookReceiver();
    try {
      const destination = await own.v2.core.eventDestinations.create({
        name: 'returns',
        type: 'webhook_endpoint',
        event_payload: 'thin',
        enabled_events: ['v2.core.account_link.returned'],
        webhook_endpoint: { url: receiver.url },
        include: ['webhook_endpoint.signing_secret'],
      });
      const account = await merchantAccount(own);
      const link = await createLinkWithSdk(own, {
        account: account.id,
        use_case: {
          type: 'account_update',
          account_update: { configurations: ['merchant'], refresh_url: `${site.url}/refresh`, return_url: `${site.url}/back` },
        },
      });

      // When the user opens the link (nothing is emitted yet), fills the form and is sent back
      await page.goto(link.url);
      expect((await own.v2.core.events.list({ types: ['v2.core.account_link.returned'] } as never)).data).toEqual([]);
      await fillIndividualDetails(page);
      await fillMerchantDetails(page);
      expect(await submit(page)).toBe(303);
      expect(page.url()).toBe(`${site.url}/back`);

      // Then the destination receives the notification, and the event names the account, configurations and use case
      const [request] = await receiver.waitFor(1);
      const notification = own.parseEventNotification(
        request!.body,
        request!.headers['service-signature'] as string,
        destination.webhook_endpoint!.signing_secret!,
      );
      expect(notification).toMatchObject({ type: 'v2.core.account_link.returned', related_object: null });
      const event = (await notification.fetchEvent()) as Stripe.V2.Core.Events.V2CoreAccountLinkReturnedEvent;
      expect(event).toMatchObject({
        type: 'v2.core.account_link.returned',
        data: { account_id: account.id, configurations: ['merchant'], use_case: 'account_update' },
        related_object: null,
        changes: null,
        context: null,
        reason: { type: 'request', request: { id: expect.stringMatching(/^req_/), idempotency_key: '' } },
      });

      // And a later visit (refreshed) emits nothing more
      await page.goto(link.url);
      expect(page.url()).toBe(`${site.url}/refresh`);
      // (a returned event is written in the hosted request's own transaction, so the list already holds any)
      expect((await own.v2.core.events.list({ types: ['v2.core.account_link.returned'] } as never)).data.map((item) => item.id)).toEqual([event.id]);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });

  it('emits v2.core.account_link.returned for a link with nothing left to collect on its first visit', async () => {
    // Given an account that owes nothing the link collects for
    const platform = await newPlatform();
    const own = sdk(platform.secret_key);
    const account = await own.v2.core.accounts.create({ configuration: { recipient: {} } });
    const link = await own.accountLinks.create({
      account: account.id,
      type: 'account_onboarding',
      refresh_url: `${site.url}/refresh`,
      return_url: `${site.url}/r`,
    });
    // When it is opened, the flow is done at once
    const opened = await fetch(link.url, { redirect: 'manual' });
    expect(opened.status).toBe(200);
    // Then the return is recorded as for a completed form
    const [event] = await eventually(async () => {
      const found = (await own.v2.core.events.list({ types: ['v2.core.account_link.returned'] } as never)).data;
      return found.length > 0 ? found : undefined;
    });
    expect(await own.v2.core.events.retrieve(event!.id)).toMatchObject({
      data: { account_id: account.id, configurations: ['recipient'], use_case: 'account_onboarding' },
    });
  });

  it('asks for the fields an answer reveals: choosing an individual brings up the name fields', async () => {
    // Given an account that has not said what kind of entity it is
    const account = await merchantAccount(client, { country: 'US' });
    const link = await onboarding(account.id);
    await page.goto(link.url);
    expect(await page.getByLabel('Legal first name').count()).toBe(0);

    // When the user picks an individual and fills what is asked
    await page.getByLabel('Individual or sole proprietor').check();
    await fillMerchantDetails(page);
    expect(await submit(page)).toBe(200);

    // Then the next page thanks them and asks for the individual's details
    expect(await page.getByRole('status').textContent()).toContain('saved');
    await expectAccessibleForm(page);
    expect(await page.getByLabel('Merchant category code (MCC)').count()).toBe(0);
    await fillIndividualDetails(page);
    expect(await submit(page)).toBe(303);
    expect(page.url()).toBe(`${site.url}/return`);
    const after = await client.v2.core.accounts.retrieve(account.id, { include: ['requirements', 'configuration.merchant'] });
    expect(currentlyDue(after)).toEqual([]);
    expect(after.configuration?.merchant?.capabilities?.card_payments?.status).toBe('active');
  });

  it('sends an expired link to refresh_url', async () => {
    const account = await merchantAccount(client);
    const link = await onboarding(account.id);
    await stackTable().update({
      TableName: stack.env.TABLE_NAME,
      Key: itemKey(link.url),
      UpdateExpression: 'SET linkExpiresAt = :past',
      ExpressionAttributeValues: { ':past': Date.now() - 1000 },
    });

    await page.goto(link.url);

    expect(page.url()).toBe(`${site.url}/refresh`);
    expect((await stackTable().get(itemKey(link.url)))?.state).toBe('fresh');
  });

  it('sends a link to refresh_url once the API key that made it is revoked, and never opens it', async () => {
    // Given a link made with a key of its own, which is then revoked
    const platform = await newPlatform();
    const own = sdk(platform.secret_key);
    const account = await merchantAccount(own);
    const link = await createLinkWithSdk(own, {
      account: account.id,
      use_case: {
        type: 'account_onboarding',
        account_onboarding: { configurations: ['merchant'], refresh_url: `${site.url}/refresh`, return_url: `${site.url}/return` },
      },
    });
    await revokeApiKey(platformStore(), platform.secret_key);
    // When the link is opened once every process has dropped the key from its cache
    await eventually(async () => ((await api('GET', '/v1/customers', { key: platform.secret_key })).status === 401 ? true : undefined));
    await page.goto(link.url);
    // Then the visitor is sent to refresh_url, and the link was not used
    expect(page.url()).toBe(`${site.url}/refresh`);
    expect((await stackTable().get(itemKey(link.url)))?.state).toBe('fresh');
  });

  it('asks for eventually due and future requirements only when the link says so', async () => {
    const account = await merchantAccount(client);
    const labelsOf = async (url: string) => {
      await page.goto(url);
      await expectAccessibleForm(page);
      return page.locator('form label').allTextContents();
    };

    const defaults = await labelsOf((await onboarding(account.id)).url);
    const more = await labelsOf((await onboarding(account.id, { collection_options: { fields: 'eventually_due', future_requirements: 'include' } })).url);

    expect(defaults).not.toContain('Nationality');
    expect(defaults).not.toContain('Type of number');
    expect(more).toEqual(expect.arrayContaining([...defaults, 'Nationality', 'Type of number', 'Number']));
    expect(more.length).toBeGreaterThan(defaults.length);
  });

  it('collects eventually due id numbers without storing their value', async () => {
    // Given an account whose current requirements are met
    const account = await merchantAccount(client);
    const first = await onboarding(account.id);
    await page.goto(first.url);
    await fillIndividualDetails(page);
    await fillMerchantDetails(page);
    expect(await submit(page)).toBe(303);

    // When an update link for eventually due fields is used
    const update = await createLinkWithSdk(client, {
      account: account.id,
      use_case: {
        type: 'account_update',
        account_update: { configurations: ['merchant'], refresh_url: `${site.url}/refresh`, collection_options: { fields: 'eventually_due' } },
      },
    });
    expect(update.use_case).toMatchObject({
      type: 'account_update',
      account_onboarding: null,
      account_update: { return_url: null, collection_options: { fields: 'eventually_due', future_requirements: 'omit' } },
    });
    await page.goto(update.url);
    expect(await page.title()).toBe('Update your account details');
    await page.getByLabel('Type of number').selectOption('us_ssn');
    await page.getByLabel('Number', { exact: true }).fill('123-45-6789');
    expect(await submit(page)).toBe(200);

    // Then, with no return_url, a done page closes the flow, and only the number's type is kept
    expect(await page.locator('h1').textContent()).toBe('Your details are complete');
    const after = await client.v2.core.accounts.retrieve(account.id, { include: ['identity', 'requirements'] });
    expect(after.identity?.individual?.id_numbers).toEqual([{ type: 'us_ssn' }]);
    expect(after.requirements?.entries ?? []).toEqual([]);
  });

  it('leads a v1 account link (accountLinks.create) through the same hosted flow, asking what the applied configurations need', async () => {
    // Given a merchant account that still owes its identity, terms and business profile
    const account = await merchantAccount(client);

    // When the platform makes a v1 onboarding link with the SDK
    const link = await client.accountLinks.create({
      account: account.id,
      type: 'account_onboarding',
      refresh_url: `${site.url}/refresh`,
      return_url: `${site.url}/return`,
    });

    // Then it is the v1 object: no id, Unix times, a URL to this service's hosted page
    expect(link).not.toHaveProperty('id');
    expect(link).toMatchObject({ object: 'account_link', created: expect.any(Number), expires_at: link.created + linkTtlMinutes * 60 });
    expect(link.url).toMatch(new RegExp(`^${stack.baseUrl}/hosted/account_links/[0-9A-Za-z]{43}$`));
    expect(await stackTable().get(itemKey(link.url))).toMatchObject({
      account: account.id,
      state: 'fresh',
      useCase: { type: 'account_onboarding', configurations: ['merchant'], collection_options: { fields: 'currently_due', future_requirements: 'omit' } },
    });

    // When the user fills the form it opens
    await page.goto(link.url);
    expect(await page.title()).toBe('Set up your account');
    await fillIndividualDetails(page);
    await fillMerchantDetails(page);
    expect(await submit(page)).toBe(303);

    // Then they are back on the platform's site, the account owes nothing, and the link only refreshes now
    expect(page.url()).toBe(`${site.url}/return`);
    expect(currentlyDue(await client.v2.core.accounts.retrieve(account.id, { include: ['requirements'] }))).toEqual([]);
    await page.goto(link.url);
    expect(page.url()).toBe(`${site.url}/refresh`);
  });

  it('maps a v1 link’s deprecated collect to the fields the hosted page asks for', async () => {
    const account = await merchantAccount(client);
    const labelsOf = async (url: string) => {
      await page.goto(url);
      return page.locator('form label').allTextContents();
    };
    const v1Link = (extra: Partial<Stripe.AccountLinkCreateParams>) =>
      client.accountLinks.create({ account: account.id, type: 'account_update', refresh_url: `${site.url}/refresh`, ...extra });

    const defaults = await labelsOf((await v1Link({})).url);
    const eventually = await labelsOf((await v1Link({ collect: 'eventually_due' })).url);
    const future = await labelsOf((await v1Link({ collection_options: { fields: 'eventually_due', future_requirements: 'include' } })).url);

    expect(defaults).not.toContain('Type of number');
    expect(eventually).toEqual(expect.arrayContaining(['Type of number', 'Number']));
    expect(eventually).not.toContain('Nationality');
    expect(future).toEqual(expect.arrayContaining(['Type of number', 'Nationality']));
  });
});

describe('account links: the hosted pages over HTTP', () => {
  let client: Stripe;
  let owner: { accountId: string; livemode: boolean };
  let link: Stripe.V2.Core.AccountLink;
  beforeAll(async () => {
    const platform = await newPlatform();
    owner = { accountId: platform.account, livemode: false };
    client = sdk(platform.secret_key);
    const account = await merchantAccount(client);
    link = await createLinkWithSdk(client, {
      account: account.id,
      use_case: { type: 'account_onboarding', account_onboarding: { configurations: ['merchant'], refresh_url: 'https://platform.example/refresh' } },
    });
  });
  const hostedPath = () => new URL(link.url).pathname;

  it('answers an unknown or malformed link with a 404 page', async () => {
    for (const path of [
      '/hosted/account_links/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      '/hosted/account_links/short',
      '/hosted/account_links/%3Cscript%3E',
    ]) {
      const response = await fetch(`${stack.baseUrl}${path}`, { redirect: 'manual' });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text()).toContain('Link not found');
    }
  });

  /** Opens a fresh link for a new merchant account; returns the post helper of its session. */
  async function openedLink(returnUrl?: string) {
    const account = await merchantAccount(client);
    const fresh = await createLinkWithSdk(client, {
      account: account.id,
      use_case: {
        type: 'account_onboarding',
        account_onboarding: { configurations: ['merchant'], refresh_url: 'https://platform.example/refresh', return_url: returnUrl },
      },
    });
    const visit = await fetch(fresh.url, { redirect: 'manual' });
    expect(visit.status).toBe(200);
    const cookie = visit.headers.get('set-cookie')!.split(';')[0]!;
    const post = (form: Record<string, string>) =>
      fetch(fresh.url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams(form).toString(),
      });
    return { account, post };
  }

  const completeForm = {
    given_name: 'Ada',
    surname: 'Lovelace',
    dob_day: '10',
    dob_month: '12',
    dob_year: '1985',
    email: 'ada@example.test',
    home_line1: '12 Analytical Row',
    home_city: 'Springfield',
    home_postal_code: '62701',
    home_country: 'US',
    mcc: '5734',
    business_url: 'https://ada.example.test',
    tos_accepted: 'yes',
  };

  it('shows the account update limit on the page as a 429, and saves once the account is free', async () => {
    const { account, post } = await openedLink('https://platform.example/return');
    const slots = dynamoUpdateSlots(stackTable());
    const held: number[] = [];
    for (let i = 0; i < updateConcurrency; i++) held.push((await slots.acquire(owner, account.id, `holder${i}`, updateConcurrency))!);
    try {
      const busy = await post(completeForm);
      expect(busy.status).toBe(429);
      const html = await busy.text();
      expect(html).toContain('role="alert"');
      expect(html).toContain('Too many changes are being made to this account');
    } finally {
      await Promise.all(held.map((slot, i) => slots.release(owner, account.id, slot, `holder${i}`)));
    }
    const saved = await post(completeForm);
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('https://platform.example/return');
  });

  it('tells the user when the account was closed after the link was opened', async () => {
    const { account, post } = await openedLink();
    await client.v2.core.accounts.close(account.id);
    const answer = await post(completeForm);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('This account is closed');
  });

  it('lets only one of several simultaneous first visits open a link', async () => {
    const account = await merchantAccount(client);
    const fresh = await createLinkWithSdk(client, {
      account: account.id,
      use_case: { type: 'account_onboarding', account_onboarding: { configurations: ['merchant'], refresh_url: 'https://platform.example/refresh' } },
    });

    const visits = await Promise.all(Array.from({ length: 6 }, () => fetch(fresh.url, { redirect: 'manual' })));

    expect(visits.map((visit) => visit.status).sort()).toEqual([200, 302, 302, 302, 302, 302]);
    expect(visits.filter((visit) => visit.headers.get('set-cookie')).length).toBe(1);
  });

  it('refuses a form post without the session the first visit opened', async () => {
    // Before the link was opened, and after someone else opened it, a post without its cookie goes to refresh_url
    const before = await fetch(link.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'mcc=5734',
    });
    expect(before.status).toBe(303);
    expect(before.headers.get('location')).toBe('https://platform.example/refresh');

    const visit = await fetch(link.url, { redirect: 'manual' });
    expect(visit.status).toBe(200);
    const cookie = visit.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^account_link_session=[0-9A-Za-z]{43}; Path=${hostedPath()}; Max-Age=\\d+; HttpOnly; SameSite=Lax$`));
    expect(visit.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(visit.headers.get('referrer-policy')).toBe('no-referrer');

    const stranger = await fetch(link.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'account_link_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      body: 'mcc=5734',
    });
    expect(stranger.status).toBe(303);
    expect(stranger.headers.get('location')).toBe('https://platform.example/refresh');

    // The session's owner gets the form back with what is wrong, as a 4xx page
    const session = cookie.split(';')[0]!;
    const owner = await fetch(link.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session },
      body: 'mcc=12345&given_name=%3Cb%3EAda',
    });
    expect(owner.status).toBe(400);
    const html = await owner.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain('value="&lt;b&gt;Ada"');
    expect(html).not.toContain('<b>Ada');

    // A body that is not a form is refused with a page, not a crash
    const json = await fetch(link.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', cookie: session },
      body: '{"mcc":"5734"}',
    });
    expect(json.status).toBe(415);
    expect(json.headers.get('content-type')).toMatch(/^text\/html/);

    // And a second visit is the link's second use: refresh_url
    const again = await fetch(link.url, { redirect: 'manual', headers: { cookie: session } });
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe('https://platform.example/refresh');
  });
});

describe('POST /v1/account_links errors', () => {
  let platform: Awaited<ReturnType<typeof newPlatform>>;
  let client: Stripe;
  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
  });
  const form = (account: string, extra = '') => `account=${account}&type=account_onboarding&refresh_url=https%3A%2F%2Fexample.test%2Fr${extra}`;

  it('answers v1 errors: a missing refresh_url, an unknown type, collect with collection_options, and no configuration to collect for', async () => {
    const account = await merchantAccount(client);
    const bare = await client.v2.core.accounts.create({ display_name: 'bare' });

    await expect(client.accountLinks.create({ account: account.id, type: 'account_onboarding' })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'parameter_missing',
      param: 'refresh_url',
      message: 'Missing required param: refresh_url.',
    });
    const unknownType = await api('POST', '/v1/account_links', {
      key: platform.secret_key,
      form: form(account.id).replace('account_onboarding', 'capital_financing_offer'),
    });
    expect(unknownType).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', code: 'parameter_invalid', param: 'type' } } });
    const both = await api('POST', '/v1/account_links', {
      key: platform.secret_key,
      form: form(account.id, '&collect=eventually_due&collection_options[fields]=eventually_due'),
    });
    expect(both).toMatchObject({ status: 400, body: { error: { code: 'parameters_exclusive', param: 'collect' } } });
    const unknownParam = await api('POST', '/v1/account_links', { key: platform.secret_key, form: form(account.id, '&use_case[type]=account_onboarding') });
    expect(unknownParam).toMatchObject({ status: 400, body: { error: { code: 'parameter_unknown', param: 'use_case' } } });
    await expect(client.accountLinks.create({ account: bare.id, type: 'account_onboarding', refresh_url: 'https://example.test/r' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'configs_must_match_to_use_account_links',
      param: 'account',
    });
  });

  it('answers resource_missing for another platform’s account, and secret_key_required to a publishable key', async () => {
    const account = await merchantAccount(client);
    const stranger = await newPlatform();
    await expect(
      sdk(stranger.secret_key).accountLinks.create({ account: account.id, type: 'account_onboarding', refresh_url: 'https://example.test/r' }),
    ).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const publishable = await api('POST', '/v1/account_links', { key: platform.publishable_key, form: form(account.id) });
    expect(publishable).toMatchObject({ status: 403, body: { error: { code: 'secret_key_required' } } });
  });
});

describe('POST /v2/core/account_links errors', () => {
  let platform: Awaited<ReturnType<typeof newPlatform>>;
  let client: Stripe;
  let account: Stripe.V2.Core.Account;
  const useCase = (configurations: string[] = ['merchant']) => ({
    type: 'account_onboarding',
    account_onboarding: { configurations, refresh_url: 'https://platform.example/refresh', return_url: 'https://platform.example/return' },
  });
  const createLink = (body: unknown, key = platform.secret_key) => api('POST', '/v2/core/account_links', { key, json: body });

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
    account = await merchantAccount(client);
  });

  it('creates a link for an account of the platform', async () => {
    const created = await createLink({ account: account.id, use_case: useCase() });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(['account', 'created', 'expires_at', 'livemode', 'object', 'url', 'use_case']);
  });

  it('answers accounts_v2_access_blocked to a platform without accounts v2', async () => {
    const blocked = await newPlatform({ accountsV2: false });
    const answer = await createLink({ account: account.id, use_case: useCase() }, blocked.secret_key);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'accounts_v2_access_blocked' });
  });

  it('answers not_found for an unknown account and for another platform’s account', async () => {
    const unknown = await createLink({ account: 'acct_1NoSuchAccount0000000', use_case: useCase() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found' });

    const other = await newPlatform();
    const foreign = await createLink({ account: account.id, use_case: useCase() }, other.secret_key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'not_found' });
  });

  it('answers configs_must_match_to_use_account_links when a configuration is not applied on the account', async () => {
    for (const configurations of [['recipient'], ['merchant', 'customer']]) {
      const answer = await createLink({ account: account.id, use_case: useCase(configurations) });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'configs_must_match_to_use_account_links' });
    }
    await expect(
      createLinkWithSdk(client, {
        account: account.id,
        use_case: { type: 'account_update', account_update: { configurations: ['customer'], refresh_url: 'https://platform.example/refresh' } },
      }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'configs_must_match_to_use_account_links' });
  });

  it('answers account_rate_limit_exceeded while the account’s update slots are all taken', async () => {
    // Given every update slot of the account is held by requests in flight
    const slots = dynamoUpdateSlots(stackTable());
    const held: number[] = [];
    const owner = { accountId: platform.account, livemode: false };
    for (let i = 0; i < updateConcurrency; i++) held.push((await slots.acquire(owner, account.id, `holder${i}`, updateConcurrency))!);
    expect(held.every((slot) => slot !== undefined)).toBe(true);
    try {
      // When a link is created
      const answer = await createLink({ account: account.id, use_case: useCase() });
      // Then it is turned away with 429
      expect(answer.status).toBe(429);
      expect(answer.body.error).toMatchObject({ type: 'rate_limit', code: 'account_rate_limit_exceeded' });
    } finally {
      await Promise.all(held.map((slot, i) => slots.release(owner, account.id, slot, `holder${i}`)));
    }
    // and once they are free, it works again
    expect((await createLink({ account: account.id, use_case: useCase() })).status).toBe(200);
  });

  it('refuses a closed account with account_closed', async () => {
    const closing = await merchantAccount(client);
    await client.v2.core.accounts.close(closing.id);
    const answer = await createLink({ account: closing.id, use_case: useCase() });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'account_closed' });
  });

  it('refuses malformed parameters with a 400 naming them', async () => {
    const cases: [unknown, string, string][] = [
      [{ use_case: useCase() }, 'parameter_missing', 'account'],
      [{ account: account.id }, 'parameter_missing', 'use_case'],
      [{ account: account.id, use_case: useCase(), expand: ['x'] }, 'parameter_unknown', 'expand'],
      [{ account: account.id, use_case: { ...useCase(), extra: true } }, 'parameter_unknown', 'use_case.extra'],
      // A member of the other type is checked but not used (the SDK's example sends both): the type's own is missing.
      [
        { account: account.id, use_case: { type: 'account_update', account_onboarding: useCase().account_onboarding } },
        'parameter_missing',
        'use_case.account_update',
      ],
      [
        { account: account.id, use_case: { ...useCase(), account_update: { configurations: ['banker'], refresh_url: 'https://example.test/r' } } },
        'parameter_invalid',
        'use_case.account_update.configurations.0',
      ],
      [{ account: account.id, use_case: { type: 'account_update' } }, 'parameter_missing', 'use_case.account_update'],
      [{ account: account.id, use_case: { type: 'account_closing', account_closing: {} } }, 'parameter_invalid', 'use_case.type'],
      [{ account: account.id, use_case: useCase([]) }, 'parameter_invalid', 'use_case.account_onboarding.configurations'],
      [{ account: account.id, use_case: useCase(['merchant', 'banker']) }, 'parameter_invalid', 'use_case.account_onboarding.configurations.1'],
      [
        { account: account.id, use_case: { type: 'account_onboarding', account_onboarding: { configurations: ['merchant'] } } },
        'parameter_missing',
        'use_case.account_onboarding.refresh_url',
      ],
      [
        {
          account: account.id,
          use_case: { type: 'account_onboarding', account_onboarding: { configurations: ['merchant'], refresh_url: 'javascript:alert(1)' } },
        },
        'parameter_invalid',
        'use_case.account_onboarding.refresh_url',
      ],
      [
        {
          account: account.id,
          use_case: { type: 'account_onboarding', account_onboarding: { ...useCase().account_onboarding, collection_options: { fields: 'all' } } },
        },
        'parameter_invalid',
        'use_case.account_onboarding.collection_options.fields',
      ],
      [
        {
          account: account.id,
          use_case: {
            type: 'account_onboarding',
            account_onboarding: { ...useCase().account_onboarding, collection_options: { future_requirements: 'include', extra: 1 } },
          },
        },
        'parameter_unknown',
        'use_case.account_onboarding.collection_options.extra',
      ],
    ];
    for (const [body, code, param] of cases) {
      const answer = await createLink(body);
      expect({ status: answer.status, code: answer.body.error?.code, message: answer.body.error?.message }).toMatchObject({
        status: 400,
        code,
        message: expect.stringContaining(param),
      });
    }
  });
});
