import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { dynamoUpdateSlots } from '#shared/data/account-repository.ts';
import { issueApiKeys } from '#shared/platform/platform-service.ts';
import { api, newPlatform, platformStore, sdk, stack, stackTable } from '../support/stack.ts';

const updateConcurrency = Number(stack.env.ACCOUNT_UPDATE_CONCURRENCY ?? 4);
import { quiesce } from '../support/wait.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const merchantAccount = {
  display_name: 'Ada Shop',
  contact_email: 'ada@example.test',
  identity: { country: 'US', entity_type: 'individual' as const },
  configuration: { merchant: { capabilities: { card_payments: { requested: true } } } },
  include: ['requirements', 'configuration.merchant'] as ('requirements' | 'configuration.merchant')[],
};

describe('v2 accounts and persons through the official SDK', () => {
  let client: Stripe;
  let secretKey: string;
  let ownerPlatform: string;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    const platform = await newPlatform();
    secretKey = platform.secret_key;
    ownerPlatform = platform.account;
    client = sdk(secretKey);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  it('creates an account whose requirements and capability statuses follow what it holds', async () => {
    const account = await client.v2.core.accounts.create(merchantAccount);
    expect(account).toMatchObject({
      object: 'v2.core.account',
      applied_configurations: ['merchant'],
      closed: false,
      display_name: 'Ada Shop',
      livemode: false,
      identity: null,
      configuration: {
        merchant: {
          applied: true,
          capabilities: { card_payments: { status: 'restricted', status_details: [{ code: 'requirements_past_due', resolution: 'provide_info' }] } },
        },
      },
    });
    expect(account.id).toMatch(/^acct_/);
    const due = account.requirements!.entries!.map((entry) => entry.description);
    expect(due).toEqual(
      expect.arrayContaining([
        'identity.individual.given_name',
        'identity.individual.surname',
        'configuration.merchant.mcc',
        'identity.attestations.terms_of_service.account',
      ]),
    );
    expect(due).not.toContain('identity.country');
    expect(account.requirements!.summary).toEqual({ minimum_deadline: { status: 'currently_due' } });

    const updated = await client.v2.core.accounts.update(account.id, {
      identity: {
        individual: {
          given_name: 'Ada',
          surname: 'Lovelace',
          email: 'ada@example.test',
          date_of_birth: { day: 10, month: 12, year: 1985 },
          address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', state: 'IL', country: 'US' },
          id_numbers: [{ type: 'us_ssn', value: '000000000' }],
        },
        attestations: { terms_of_service: { account: { date: '2026-01-01T00:00:00.000Z', ip: '127.0.0.1' } } },
      },
      configuration: { merchant: { mcc: '5734' } },
      defaults: { profile: { business_url: 'https://shop.example.test' } },
      include: ['requirements', 'configuration.merchant', 'identity', 'future_requirements'],
    });
    expect(updated.requirements!.entries).toEqual([]);
    expect(updated.configuration!.merchant!.capabilities!.card_payments).toEqual({ status: 'active', status_details: [] });
    expect(updated.identity!.individual).toMatchObject({
      given_name: 'Ada',
      object: 'v2.core.account_person',
      account: account.id,
      id_numbers: [{ type: 'us_ssn' }],
    });
    expect(JSON.stringify(updated)).not.toContain('000000000');
    expect(updated.future_requirements!.entries!.map((entry) => entry.description)).toEqual(['identity.individual.nationalities']);

    const retrieved = await client.v2.core.accounts.retrieve(account.id, { include: ['defaults'] });
    expect(retrieved.defaults).toMatchObject({
      profile: { business_url: 'https://shop.example.test' },
      responsibilities: { requirements_collector: 'service' },
    });
    expect(retrieved.requirements).toBeNull();
  });

  it('lists by applied configuration, hides closed accounts, and closes only with every applied configuration named', async () => {
    const merchant = await client.v2.core.accounts.create({ configuration: { merchant: {} } });
    const recipient = await client.v2.core.accounts.create({ configuration: { recipient: { capabilities: { cards: { requested: true } } } } });
    const onlyRecipients = await client.v2.core.accounts.list({ applied_configurations: ['recipient'] });
    expect(onlyRecipients.data.map((item) => item.id)).toContain(recipient.id);
    expect(onlyRecipients.data.map((item) => item.id)).not.toContain(merchant.id);

    await expect(client.v2.core.accounts.close(merchant.id, { applied_configurations: ['recipient'] })).rejects.toMatchObject({ statusCode: 400 });
    const closed = await client.v2.core.accounts.close(merchant.id, { applied_configurations: ['merchant'] });
    expect(closed.closed).toBe(true);
    const open = await client.v2.core.accounts.list({ limit: 100 });
    expect(open.data.map((item) => item.id)).not.toContain(merchant.id);
    const withClosed = await client.v2.core.accounts.list({ closed: true, limit: 100 });
    expect(withClosed.data.map((item) => item.id)).toContain(merchant.id);
    await expect(client.v2.core.accounts.update(merchant.id, { display_name: 'x' })).rejects.toMatchObject({ statusCode: 400, code: 'account_closed' });

    const paged = await client.v2.core.accounts.list({ limit: 1 });
    expect(paged.data).toHaveLength(1);
    expect(paged.next_page_url).toMatch(/^\/v2\/core\/accounts\?page=/);
  });

  it('creates, lists, updates, retrieves and deletes persons', async () => {
    const account = await client.v2.core.accounts.create({ identity: { country: 'GB', entity_type: 'company' } });
    const person = await client.v2.core.accounts.persons.create(account.id, {
      given_name: 'Grace',
      surname: 'Hopper',
      relationship: { director: true, percent_ownership: '25.5' as unknown as Stripe.Decimal },
      id_numbers: [{ type: 'gb_nino', value: 'QQ123456C' }],
      metadata: { role: 'cto' },
    });
    expect(person).toMatchObject({
      object: 'v2.core.account_person',
      account: account.id,
      given_name: 'Grace',
      metadata: { role: 'cto' },
      id_numbers: [{ type: 'gb_nino' }],
    });
    expect(person.id).toMatch(/^person_/);
    const updated = await client.v2.core.accounts.persons.update(account.id, person.id, {
      email: 'grace@example.test',
      metadata: { role: null } as unknown as Record<string, string>,
    });
    expect(updated).toMatchObject({ email: 'grace@example.test', metadata: {} });
    expect(await client.v2.core.accounts.persons.retrieve(account.id, person.id)).toMatchObject({ email: 'grace@example.test' });
    const second = await client.v2.core.accounts.persons.create(account.id, { given_name: 'Katherine' });
    const listed = await client.v2.core.accounts.persons.list(account.id);
    expect(listed.data.map((item) => item.id)).toEqual([second.id, person.id]);
    expect(await client.v2.core.accounts.persons.del(account.id, person.id)).toMatchObject({ id: person.id, object: 'v2.core.account_person' });
    await expect(client.v2.core.accounts.persons.retrieve(account.id, person.id)).rejects.toMatchObject({ statusCode: 404, code: 'not_found' });
    const stranger = await client.v2.core.accounts.create({});
    await expect(client.v2.core.accounts.persons.retrieve(stranger.id, second.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('emits the account and person events with the changes the spec describes', async () => {
    await client.v2.core.eventDestinations.create({
      name: 'accounts',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: [
        'v2.core.account.created',
        'v2.core.account.updated',
        'v2.core.account.closed',
        'v2.core.account[identity].updated',
        'v2.core.account[requirements].updated',
        'v2.core.account[configuration.merchant].updated',
        'v2.core.account[configuration.merchant].capability_status_updated',
        'v2.core.account_person.created',
        'v2.core.account_person.updated',
        'v2.core.account_person.deleted',
      ],
      webhook_endpoint: { url: `${receiver.url}?accounts` },
    });
    const account = await client.v2.core.accounts.create({
      identity: { country: 'US', entity_type: 'company' },
      configuration: { merchant: { capabilities: { card_payments: { requested: true } } } },
    });
    await client.v2.core.accounts.update(account.id, {
      identity: {
        business_details: { registered_name: 'Acme', address: { line1: '1 Main', city: 'Town', country: 'US' } },
        attestations: { terms_of_service: { account: { date: '2026-01-01T00:00:00Z', ip: '10.0.0.1' } } },
      },
      configuration: { merchant: { mcc: '5734' } },
      defaults: { profile: { business_url: 'https://acme.example.test' } },
    });
    const person = await client.v2.core.accounts.persons.create(account.id, { given_name: 'Wile' });
    await client.v2.core.accounts.persons.update(account.id, person.id, { surname: 'Coyote' });
    await client.v2.core.accounts.persons.del(account.id, person.id);
    await client.v2.core.accounts.close(account.id);

    const types = [
      'v2.core.account.created',
      'v2.core.account.updated',
      'v2.core.account[identity].updated',
      'v2.core.account[requirements].updated',
      'v2.core.account[configuration.merchant].updated',
      'v2.core.account[configuration.merchant].capability_status_updated',
      'v2.core.account_person.created',
      'v2.core.account_person.updated',
      'v2.core.account_person.deleted',
      'v2.core.account.closed',
    ];
    const received = await receiver.waitFor(types.length);
    const thin = received.map((request) => JSON.parse(request.body) as { id: string; type: string; related_object: { id: string; type: string } });
    expect(thin.map((event) => event.type).sort()).toEqual([...types].sort());
    const fetch = async (type: string) => client.v2.core.events.retrieve(thin.find((event) => event.type === type)!.id) as Promise<any>;

    expect(await fetch('v2.core.account.created')).toMatchObject({
      related_object: { id: account.id, type: 'v2.core.account', url: `/v2/core/accounts/${account.id}` },
      changes: { before: null, after: { id: account.id } },
    });
    expect(await fetch('v2.core.account[identity].updated')).toMatchObject({
      changes: { before: { identity: { entity_type: 'company' } }, after: { identity: { business_details: { registered_name: 'Acme' } } } },
    });
    expect(await fetch('v2.core.account[configuration.merchant].capability_status_updated')).toMatchObject({ data: { updated_capability: 'card_payments' } });
    expect(await fetch('v2.core.account.closed')).toMatchObject({ changes: { before: { closed: false }, after: { closed: true } } });
    expect(await fetch('v2.core.account_person.created')).toMatchObject({
      related_object: { id: person.id, type: 'v2.core.account_person' },
      data: { account_id: account.id },
      changes: { before: null, after: { given_name: 'Wile' } },
    });
    expect(await fetch('v2.core.account_person.updated')).toMatchObject({
      data: { account_id: account.id },
      changes: { before: { surname: null }, after: { surname: 'Coyote' } },
    });
    expect(await fetch('v2.core.account_person.deleted')).toMatchObject({ data: { account_id: account.id }, changes: { after: null } });
  });

  it('answers the documented errors over HTTP', async () => {
    const blocked = await newPlatform({ accountsV2: false });
    for (const [method, path, json] of [
      ['POST', '/v2/core/accounts', {}],
      ['GET', '/v2/core/accounts', undefined],
      ['GET', '/v2/core/accounts/acct_123/persons', undefined],
    ] as const) {
      const answer = await api(method, path, { key: blocked.secret_key, json });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'accounts_v2_access_blocked' });
    }
    const missing = await api('GET', '/v2/core/accounts/acct_missing', { key: secretKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const unknownField = await api('POST', '/v2/core/accounts', { key: secretKey, json: { identity: { country: 'US', nickname: 'x' } } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.message).toContain('nickname');
    const badCapability = await api('POST', '/v2/core/accounts', {
      key: secretKey,
      json: { configuration: { merchant: { capabilities: { teleport_payments: { requested: true } } } } },
    });
    expect(badCapability.status).toBe(400);
  });

  it('limits concurrent updates per account with 429 account_rate_limit_exceeded, and loses none of the updates it lets through', async () => {
    const account = await client.v2.core.accounts.create({});
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => api('POST', `/v2/core/accounts/${account.id}`, { key: secretKey, json: { metadata: { [`k${i}`]: 'v' } } })),
    );
    const accepted = answers.map((answer, i) => [answer, i] as const).filter(([answer]) => answer.status === 200);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(accepted.length + limited.length).toBe(24);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body.error).toMatchObject({ type: 'rate_limit', code: 'account_rate_limit_exceeded' });
    const final = await client.v2.core.accounts.retrieve(account.id);
    expect(Object.keys(final.metadata!).sort()).toEqual(accepted.map(([, i]) => `k${i}`).sort());
  });

  it('checks who owns an account before taking an update slot: a stranger gets 404 and cannot starve the owner', async () => {
    const account = await client.v2.core.accounts.create({});
    const stranger = await newPlatform();
    const ownerScope = { accountId: ownerPlatform, livemode: false };

    // Given every one of the owner's update slots is held by requests in flight
    const slots = dynamoUpdateSlots(stackTable());
    const held = await Promise.all(Array.from({ length: updateConcurrency }, (_, i) => slots.acquire(ownerScope, account.id, `holder${i}`, updateConcurrency)));
    try {
      // When a stranger, and the owner's other mode, update the account
      const strange = await api('POST', `/v2/core/accounts/${account.id}`, { key: stranger.secret_key, json: { metadata: { x: 'y' } } });
      // Then they learn nothing but 404, as for any unknown id (not the 429 that would tell it exists)
      expect(strange.status).toBe(404);
      expect(strange.body.error).toMatchObject({ code: 'not_found' });
    } finally {
      await Promise.all(held.map((slot, i) => slots.release(ownerScope, account.id, slot!, `holder${i}`)));
    }

    // And a flood of the stranger's updates leaves every one of the owner's concurrent updates through
    const [flood, own] = await Promise.all([
      Promise.all(
        Array.from({ length: 30 }, () => api('POST', `/v2/core/accounts/${account.id}`, { key: stranger.secret_key, json: { metadata: { x: 'y' } } })),
      ),
      Promise.all(
        Array.from({ length: updateConcurrency }, (_, i) =>
          api('POST', `/v2/core/accounts/${account.id}`, { key: secretKey, json: { metadata: { [`own${i}`]: 'v' } } }),
        ),
      ),
    ]);
    expect(flood.every((answer) => answer.status === 404)).toBe(true);
    expect(own.map((answer) => answer.status)).toEqual(Array(updateConcurrency).fill(200));
  });

  it("answers the account limit's 429 with the retry headers of the per-key limit, so the SDK retries by itself", async () => {
    // Given every update slot of an account is held
    const account = await client.v2.core.accounts.create({});
    const ownerScope = { accountId: ownerPlatform, livemode: false };
    const slots = dynamoUpdateSlots(stackTable());
    const held = await Promise.all(Array.from({ length: updateConcurrency }, (_, i) => slots.acquire(ownerScope, account.id, `busy${i}`, updateConcurrency)));
    const release = () => Promise.all(held.map((slot, i) => slots.release(ownerScope, account.id, slot!, `busy${i}`)));
    try {
      // When an update comes in, raw and through an SDK that does not retry
      const raw = await api('POST', `/v2/core/accounts/${account.id}`, { key: secretKey, json: { metadata: { raw: 'v' } } });
      // Then the 429 carries Retry-After and tells SDKs to retry, as the per-key limiter's does
      expect(raw.status).toBe(429);
      expect(raw.body.error).toMatchObject({ type: 'rate_limit', code: 'account_rate_limit_exceeded' });
      expect([raw.headers.get('retry-after'), raw.headers.get('stripe-should-retry'), raw.headers.get('service-should-retry')]).toEqual(['1', 'true', 'true']);
      const once = sdk(secretKey, { maxNetworkRetries: 0 });
      await expect(once.v2.core.accounts.update(account.id, { metadata: { once: 'v' } })).rejects.toMatchObject({
        statusCode: 429,
        code: 'account_rate_limit_exceeded',
        headers: expect.objectContaining({ 'retry-after': '1' }),
      });

      // And the official SDK with its default retries waits as told and gets through once the slots are free
      // (its second attempt starting is the fact that its first was refused; the slots are freed before it gives up)
      const refused = new Promise<void>((resolve) => {
        let attempts = 0;
        const onRequest = (event: Stripe.RequestEvent) => {
          if (event.path !== `/v2/core/accounts/${account.id}` || ++attempts < 2) return;
          client.off('request', onRequest);
          resolve();
        };
        client.on('request', onRequest);
      });
      const retried = client.v2.core.accounts.update(account.id, { metadata: { retried: 'yes' } });
      await refused;
      await release();
      expect((await retried).metadata).toMatchObject({ retried: 'yes' });
    } finally {
      await release();
    }
  });
});

describe('acting as a connected account (Service-Context)', () => {
  it('makes objects inside the connected account, whose events carry context and reach @accounts destinations, not @self ones', async () => {
    const platform = await newPlatform();
    const client = sdk(platform.secret_key);
    const receiver = await startWebhookReceiver();
    try {
      const connected = await client.v2.core.accounts.create({ display_name: 'Connected shop' });
      const destination = (events_from: string[], tag: string) =>
        client.v2.core.eventDestinations.create({
          name: tag,
          type: 'webhook_endpoint',
          event_payload: 'thin',
          enabled_events: ['v1.customer.created'],
          events_from,
          include: ['webhook_endpoint.signing_secret'],
          webhook_endpoint: { url: `${receiver.url}?${tag}` },
        });
      await destination(['@self'], 'self');
      const accounts = await destination(['@accounts'], 'accounts');

      // The SDK's own option (sent as its Stripe-Context header) and the service's header both act inside the account.
      const inside = await client.customers.create({ name: 'Inside' }, { stripeContext: connected.id });
      const viaHeader = await api('POST', '/v1/customers', { key: platform.secret_key, headers: { 'service-context': connected.id }, form: 'name=Header' });
      expect(viaHeader.status).toBe(200);
      await expect(client.customers.retrieve(inside.id)).rejects.toMatchObject({ statusCode: 404 });
      expect(await client.customers.retrieve(inside.id, {}, { stripeContext: connected.id })).toMatchObject({ name: 'Inside' });

      const received = await receiver.waitFor(2);
      await quiesce({ queues: ['deliveries'] });
      expect(received.every((request) => request.path === '/hook?accounts')).toBe(true);
      expect(received).toHaveLength(2);
      const notification = client.parseEventNotification(
        received[0]!.body,
        received[0]!.headers['service-signature'] as string,
        accounts.webhook_endpoint!.signing_secret!,
      );
      expect(JSON.parse(received[0]!.body)).toMatchObject({ type: 'v1.customer.created', context: connected.id });
      const event = await notification.fetchEvent();
      expect(event).toMatchObject({ type: 'v1.customer.created', context: connected.id });

      const other = await newPlatform();
      const foreign = await sdk(other.secret_key).v2.core.accounts.create({});
      const refused = await api('GET', '/v1/customers', { key: platform.secret_key, headers: { 'service-context': foreign.id } });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('account_invalid');
    } finally {
      await receiver.stop();
    }
  });
});

describe('v2 account and person tokens through the official SDK', () => {
  it('makes an account token with a publishable key, applies it once on create, and shows only its state', async () => {
    // Given an account token made from the browser with the publishable key
    const platform = await newPlatform();
    const client = sdk(platform.secret_key);
    const token = await sdk(platform.publishable_key).v2.core.accountTokens.create({
      contact_email: 'ada@example.test',
      display_name: 'Ada',
      identity: {
        entity_type: 'individual',
        individual: {
          given_name: 'Ada',
          surname: 'Lovelace',
          date_of_birth: { day: 10, month: 12, year: 1985 },
          address: { line1: '1 Main', city: 'Town', country: 'US' },
          id_numbers: [{ type: 'us_ssn', value: '000000000' }],
        },
        attestations: { terms_of_service: { account: { shown_and_accepted: true } } },
      },
    });

    // Then it is a v2.core.account_token that expires 10 minutes after creation
    expect(token).toMatchObject({ object: 'v2.core.account_token', livemode: false, used: false });
    expect(token.id).toMatch(/^accttok_/);
    expect(Date.parse(token.expires_at) - Date.parse(token.created)).toBe(10 * 60_000);
    expect(Object.keys(token).sort()).toEqual(['created', 'expires_at', 'id', 'livemode', 'object', 'used']);

    // When the platform's server creates the account with it
    const account = await client.v2.core.accounts.create({ account_token: token.id, identity: undefined, include: ['identity'] });

    // Then the account holds the token's data, as if sent inline
    expect(account).toMatchObject({ contact_email: 'ada@example.test', display_name: 'Ada' });
    expect(account.identity).toMatchObject({
      entity_type: 'individual',
      individual: { given_name: 'Ada', surname: 'Lovelace', date_of_birth: { day: 10, month: 12, year: 1985 }, id_numbers: [{ type: 'us_ssn' }] },
      attestations: { terms_of_service: { account: { date: token.created, ip: '127.0.0.1' } } },
    });
    expect(JSON.stringify(account)).not.toContain('000000000');
    expect(await client.v2.core.accountTokens.retrieve(token.id)).toMatchObject({ id: token.id, used: true });
    await expect(client.v2.core.accounts.create({ account_token: token.id })).rejects.toMatchObject({ statusCode: 400, code: 'token_already_used' });
    await expect(client.v2.core.accounts.update(account.id, { account_token: token.id })).rejects.toMatchObject({ code: 'token_already_used' });
    await expect(sdk(platform.publishable_key).v2.core.accountTokens.retrieve(token.id)).rejects.toMatchObject({
      statusCode: 403,
      code: 'secret_key_required',
    });
  });

  it('applies a person token only to its account, refuses it beside inline details, and keeps it when the write fails', async () => {
    const platform = await newPlatform();
    const client = sdk(platform.secret_key);
    const account = await client.v2.core.accounts.create({ display_name: 'Shop' });
    const other = await client.v2.core.accounts.create({ display_name: 'Other' });
    const token = await sdk(platform.publishable_key).v2.core.accounts.personTokens.create(account.id, {
      given_name: 'Grace',
      surname: 'Hopper',
      relationship: { owner: true, percent_ownership: '40' as never },
      additional_terms_of_service: { account: { shown_and_accepted: true } },
    });
    expect(token).toMatchObject({ object: 'v2.core.account_person_token', used: false });
    expect(token.id).toMatch(/^perstok_/);
    expect(await client.v2.core.accounts.personTokens.retrieve(account.id, token.id)).toMatchObject({ id: token.id, used: false });
    await expect(client.v2.core.accounts.personTokens.retrieve(other.id, token.id)).rejects.toMatchObject({ statusCode: 404, code: 'not_found' });

    await expect(client.v2.core.accounts.persons.create(other.id, { person_token: token.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_invalid',
    });
    await expect(client.v2.core.accounts.persons.create(account.id, { person_token: token.id, email: 'g@example.test' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameters_exclusive',
    });
    await expect(client.v2.core.accounts.persons.create(account.id, { person_token: token.id, given_name: 'x'.repeat(300) })).rejects.toMatchObject({
      statusCode: 400,
    });
    expect((await client.v2.core.accounts.personTokens.retrieve(account.id, token.id)).used).toBe(false);

    const person = await client.v2.core.accounts.persons.create(account.id, { person_token: token.id, metadata: { ref: '1' } });
    expect(person).toMatchObject({ given_name: 'Grace', surname: 'Hopper', relationship: { owner: true }, metadata: { ref: '1' } });
    expect(person.additional_terms_of_service?.account).toMatchObject({ date: token.created, ip: '127.0.0.1' });
    expect((await client.v2.core.accounts.personTokens.retrieve(account.id, token.id)).used).toBe(true);
  });

  it('validates token data as inline data, takes live tokens from publishable keys only, and keeps tokens per platform and mode', async () => {
    const platform = await newPlatform();
    const live = await issueApiKeys(platformStore(), platform.account, { livemode: true });
    const stranger = await newPlatform();
    const bad = await api('POST', '/v2/core/account_tokens', {
      key: platform.publishable_key,
      json: { identity: { individual: { date_of_birth: { day: 31, month: 2, year: 1990 } } } },
    });
    expect(bad).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', code: 'parameter_invalid' } } });
    const withCountry = await api('POST', '/v2/core/account_tokens', { key: platform.publishable_key, json: { identity: { country: 'US' } } });
    expect(withCountry).toMatchObject({ status: 400, body: { error: { code: 'parameter_unknown' } } });

    await expect(sdk(live.secret_key).v2.core.accountTokens.create({ display_name: 'x' })).rejects.toMatchObject({
      statusCode: 403,
      code: 'publishable_key_required',
    });
    const liveToken = await sdk(live.publishable_key).v2.core.accountTokens.create({ display_name: 'Live' });
    expect(liveToken.livemode).toBe(true);
    const testToken = await sdk(platform.secret_key).v2.core.accountTokens.create({ display_name: 'Test' });

    await expect(sdk(platform.secret_key).v2.core.accountTokens.retrieve(liveToken.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(sdk(stranger.secret_key).v2.core.accountTokens.retrieve(testToken.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(sdk(stranger.secret_key).v2.core.accounts.create({ account_token: testToken.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
    });
    await expect(sdk(platform.secret_key).tokens.retrieve(testToken.id)).rejects.toMatchObject({ statusCode: 404 });
    expect((await sdk(platform.secret_key).v2.core.accounts.create({ account_token: testToken.id })).display_name).toBe('Test');
  });

  it('lets exactly one of 20 concurrent requests use one token', async () => {
    const platform = await newPlatform();
    const token = await sdk(platform.publishable_key).v2.core.accountTokens.create({ display_name: 'Once' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api('POST', '/v2/core/accounts', { key: platform.secret_key, json: { account_token: token.id } })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(19);
    for (const answer of refused) expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'token_already_used' });
    const listed = await sdk(platform.secret_key).v2.core.accounts.list({ limit: 100 });
    expect(listed.data).toHaveLength(1);
  });
});

describe('v1 account and person tokens on v2 accounts (accepted too)', () => {
  it('fills identity from a v1 account token and a person from a v1 person token, each usable once', async () => {
    const platform = await newPlatform();
    const client = sdk(platform.secret_key);
    const publishable = sdk(platform.publishable_key);
    const accountToken = await publishable.tokens.create({
      account: {
        business_type: 'individual',
        individual: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          dob: { day: 10, month: 12, year: 1985 },
          address: { line1: '1 Main', city: 'Town', country: 'US' },
          id_number: '000000000',
        },
        tos_shown_and_accepted: true,
      },
    });
    const account = await client.v2.core.accounts.create({ account_token: accountToken.id, include: ['identity'] });
    expect(account.identity).toMatchObject({
      entity_type: 'individual',
      country: 'US',
      individual: { given_name: 'Ada', surname: 'Lovelace', date_of_birth: { day: 10, month: 12, year: 1985 }, id_numbers: [{ type: 'us_ssn' }] },
      attestations: { terms_of_service: { account: { date: expect.any(String) } } },
    });
    expect(JSON.stringify(account)).not.toContain('000000000');
    expect((await client.tokens.retrieve(accountToken.id)).used).toBe(true);
    await expect(client.v2.core.accounts.create({ account_token: accountToken.id })).rejects.toMatchObject({ statusCode: 400, code: 'token_already_used' });

    const personToken = await client.tokens.create({
      person: { first_name: 'Grace', last_name: 'Hopper', relationship: { owner: true, percent_ownership: 40 } },
    });
    const person = await client.v2.core.accounts.persons.create(account.id, { person_token: personToken.id, metadata: { k: 'v' } });
    expect(person).toMatchObject({ given_name: 'Grace', surname: 'Hopper', relationship: { owner: true }, metadata: { k: 'v' } });
    await expect(client.v2.core.accounts.persons.create(account.id, { person_token: accountToken.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_invalid',
    });
    await expect(client.v2.core.accounts.create({ account_token: 'tok_missing' })).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing' });
  });
});
