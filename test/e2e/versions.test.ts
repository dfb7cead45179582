import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

type Wire = Record<string, any>;

/** An SDK pinned to another version than its own, as an integration written against it would be. */
const pinnedTo = (key: string, version: string) => sdk(key, { apiVersion: version as Stripe.LatestApiVersion });

describe('objects rendered at the version an integration is pinned to, through the official SDK', () => {
  let key: string;
  let client: Stripe;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  it("shows a product with features before 2024-04-10, nested in an expanded price and in a pinned endpoint's events", async () => {
    // Given an endpoint pinned to 2023-10-16 and one pinned to the SDK's version
    await client.webhookEndpoints.create({ url: `${receiver.url}/old`, enabled_events: ['product.created'], api_version: '2023-10-16' });
    await client.webhookEndpoints.create({ url: `${receiver.url}/new`, enabled_events: ['product.created'], api_version: '2026-10-28.endive' });

    // When a product is made through the current SDK and read through one pinned to 2023-10-16
    const product = await client.products.create({ name: 'Gold', marketing_features: [{ name: 'Fast' }] });
    const old = pinnedTo(key, '2023-10-16');
    const read = (await old.products.retrieve(product.id)) as unknown as Wire;
    const price = await client.prices.create({ product: product.id, unit_amount: 100, currency: 'usd', recurring: { interval: 'month' } });
    const expanded = (await old.prices.retrieve(price.id, { expand: ['product'] })) as unknown as Wire;
    const listed = (await old.products.list({ limit: 100 })).data.find((found) => found.id === product.id) as unknown as Wire;

    // Then the older name is used wherever the product appears
    expect(product.marketing_features).toEqual([{ name: 'Fast' }]);
    expect(read).toMatchObject({ id: product.id, features: [{ name: 'Fast' }] });
    expect(read).not.toHaveProperty('marketing_features');
    expect(listed.features).toEqual([{ name: 'Fast' }]);
    expect(expanded.product).toMatchObject({ id: product.id, features: [{ name: 'Fast' }] });
    expect(expanded.recurring).toMatchObject({ aggregate_usage: null, interval: 'month' });
    const received = new Map((await receiver.waitFor(2)).map((request) => [request.path.split('/').pop(), JSON.parse(request.body)]));
    expect(received.get('old')).toMatchObject({ api_version: '2023-10-16', data: { object: { id: product.id, features: [{ name: 'Fast' }] } } });
    expect(received.get('old').data.object).not.toHaveProperty('marketing_features');
    expect(received.get('new')).toMatchObject({ api_version: '2026-10-28.endive', data: { object: { marketing_features: [{ name: 'Fast' }] } } });
  });

  it('shows an expired issuing authorization as reversed, and the newer decline reasons as the older ones, at versions before they existed', async () => {
    // Given an authorization the network let expire, and one declined because its card is canceled
    const cardholder = await client.issuing.cardholders.create({
      name: 'Jenny Rosen',
      billing: { address: { line1: '1234 Main Street', city: 'San Francisco', state: 'CA', postal_code: '94111', country: 'US' } },
    });
    const card = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual', status: 'active' });
    const authorization = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 500 });
    const expired = await client.testHelpers.issuing.authorizations.expire(authorization.id);
    await client.issuing.cards.update(card.id, { status: 'canceled' });
    const declined = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 300 });

    // When they are read at versions before basil and before 2024-06-20
    const beforeBasil = (await pinnedTo(key, '2025-02-24.acacia').issuing.authorizations.retrieve(expired.id)) as unknown as Wire;
    const beforeReasons = (await pinnedTo(key, '2024-04-10').issuing.authorizations.retrieve(declined.id)) as unknown as Wire;
    const raw = await api('GET', `/v1/issuing/authorizations/${declined.id}`, { key, headers: { 'service-version': '2024-06-20' } });

    // Then they show the values those versions knew
    expect(expired.status).toBe('expired');
    expect(beforeBasil.status).toBe('reversed');
    expect(declined.request_history[0]!.reason).toBe('card_canceled');
    expect(beforeReasons.request_history[0].reason).toBe('card_inactive');
    expect(raw.body.request_history[0].reason).toBe('card_canceled');
  });
});
