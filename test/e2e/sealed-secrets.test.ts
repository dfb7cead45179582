import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { ensureAccountSecrets } from '#shared/data/account-secret-store.ts';
import { accountSecret, eventDestination, webhookEndpoint } from '#shared/data/keys.ts';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, sdk, stackTable } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const scopeOf = (platform: CreatedPlatform) => ({ accountId: platform.account, livemode: false });

describe('signing secrets stored sealed', () => {
  let platform: CreatedPlatform;
  let client: Stripe;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  it("keeps a v1 endpoint's secret sealed in the table, and signs its deliveries with it", async () => {
    // Given an endpoint created through the SDK, which answers its secret once
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['product.created'] });
    const secret = endpoint.secret!;
    expect(secret).toMatch(/^whsec_/);

    // When the table is read directly
    const item = await stackTable().get({ PK: webhookEndpoint.pk(scopeOf(platform)), SK: webhookEndpoint.sk(endpoint.id) });

    // Then the item holds the secret sealed, and nowhere in the clear
    expect(item?.secret).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(item)).not.toContain(secret);
    expect(JSON.stringify(item)).not.toContain(secret.slice('whsec_'.length));

    // And when an event is emitted, the delivery verifies with the secret the create answer showed
    const before = receiver.received.length;
    const product = await client.products.create({ name: 'Sealed' });
    const requests = await receiver.waitFor(before + 1);
    const request = requests.at(-1)!;
    const event = client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, secret);
    expect(event).toMatchObject({ type: 'product.created', data: { object: { id: product.id } } });
    // …and retrieving the endpoint never shows it
    expect((await client.webhookEndpoints.retrieve(endpoint.id)).secret).toBeUndefined();
  });

  it("keeps a v2 webhook destination's signing secret sealed, and signs its pings with it", async () => {
    // Given a destination whose secret the create answer included
    const destination = await client.v2.core.eventDestinations.create({
      name: 'sealed',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: receiver.url },
      include: ['webhook_endpoint.signing_secret'],
    });
    const secret = destination.webhook_endpoint!.signing_secret!;

    // When the table is read directly, Then the secret is sealed there
    const item = await stackTable().get({ PK: eventDestination.pk(scopeOf(platform)), SK: eventDestination.sk(destination.id) });
    expect(item?.webhookEndpoint).toMatchObject({ signingSecret: expect.stringMatching(/^sealed:v1:/) });
    expect(JSON.stringify(item)).not.toContain(secret);

    // And a ping arrives signed with it
    const before = receiver.received.length;
    const ping = await client.v2.core.eventDestinations.ping(destination.id);
    const request = (await receiver.waitFor(before + 1)).at(-1)!;
    expect(client.parseEventNotification(request.body, request.headers['service-signature'] as string, secret)).toMatchObject({ id: ping.id });
  });

  it('still signs with a secret stored in the clear before sealing existed, and seals it on the next update', async () => {
    // Given an endpoint (the only one of its platform) whose item holds its secret in the clear, as items written before sealing do
    const own = await newPlatform();
    const client = sdk(own.secret_key);
    const receiver = await startWebhookReceiver();
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['product.created'] });
    const legacy = 'whsec_legacyPlaintextSecret0123456789ab';
    const key = { PK: webhookEndpoint.pk(scopeOf(own)), SK: webhookEndpoint.sk(endpoint.id) };
    const table = stackTable();
    await table.put({ TableName: table.name, Item: { ...(await table.get(key)), secret: legacy } });

    // When an event is delivered to it, Then the delivery verifies with the plaintext secret
    let before = receiver.received.length;
    await client.products.create({ name: 'Legacy' });
    let request = (await receiver.waitFor(before + 1)).at(-1)!;
    expect(client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, legacy)).toMatchObject({ type: 'product.created' });

    // And when the endpoint is updated, its item holds the same secret sealed, which still signs
    await client.webhookEndpoints.update(endpoint.id, { description: 'touched' });
    const item = await table.get(key);
    expect(item?.secret).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(item)).not.toContain(legacy);
    before = receiver.received.length;
    await client.products.create({ name: 'Resealed' });
    request = (await receiver.waitFor(before + 1)).at(-1)!;
    expect(client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, legacy)).toMatchObject({ type: 'product.created' });
    await receiver.stop();
  });

  it('gives a new platform its account secret at creation, so read-only routes (which may not create one) find it', async () => {
    // Given a platform just created
    const fresh = await newPlatform();

    // When the table is read, Then its secret is there already, and a v2 list (page tokens are keyed by it) answers
    expect(await stackTable().get({ PK: accountSecret.pk(fresh.account), SK: accountSecret.sk() })).toBeDefined();
    const list = await api('GET', '/v2/core/event_destinations?limit=1', { key: fresh.secret_key });
    expect(list.status).toBe(200);
  });

  it('answers a read-only request of an account without a secret with a clear 409 until its first write creates one', async () => {
    // Given an account made before accounts got their secret at creation (its secret removed)
    const old = await newPlatform();
    const table = stackTable();
    await table.delete({ TableName: table.name, Key: { PK: accountSecret.pk(old.account), SK: accountSecret.sk() } });

    // When it lists v2 objects, Then it is told why, without a 5xx
    const refused = await api('GET', '/v2/core/event_destinations', { key: old.secret_key });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'account_secret_missing' });

    // And once a POST (the SDK sends an Idempotency-Key) has created it, the list answers
    await sdk(old.secret_key).products.create({ name: 'first write' });
    expect(await table.get({ PK: accountSecret.pk(old.account), SK: accountSecret.sk() })).toBeDefined();
    const list = await api('GET', '/v2/core/event_destinations', { key: old.secret_key });
    expect(list.status).toBe(200);
  });

  it("gives every account without a secret its own with the operator's one-off ensure-account-secrets step", async () => {
    // Given an account whose secret is missing
    const old = await newPlatform();
    const table = stackTable();
    await table.delete({ TableName: table.name, Key: { PK: accountSecret.pk(old.account), SK: accountSecret.sk() } });

    // When the operator's step runs (npm run admin -- ensure-account-secrets)
    const outcome = await ensureAccountSecrets(table);

    // Then it created that account's secret (and left the others' alone), and its read-only requests answer
    expect(outcome.created).toBeGreaterThanOrEqual(1);
    expect(outcome.accounts).toBeGreaterThan(outcome.created);
    expect(await table.get({ PK: accountSecret.pk(old.account), SK: accountSecret.sk() })).toBeDefined();
    expect((await api('GET', '/v2/core/event_destinations', { key: old.secret_key })).status).toBe(200);
    expect((await ensureAccountSecrets(table)).created).toBe(0);
  });
});
