import { beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { issueApiKeys, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, platformStore, sdk } from '../support/stack.ts';

const hook = 'http://127.0.0.1:9/hook';

describe('v1 webhook endpoints through the official SDK', () => {
  let platform: CreatedPlatform;
  let client: Stripe;

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
  });

  it('creates an endpoint and shows its secret only in the create response', async () => {
    // When
    const created = await client.webhookEndpoints.create({
      url: hook,
      enabled_events: ['customer.created', 'customer.updated'],
      description: 'orders',
      metadata: { team: 'billing' },
      api_version: '2026-09-30.endive',
    });

    // Then
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      url: hook,
      enabled_events: ['customer.created', 'customer.updated'],
      description: 'orders',
      metadata: { team: 'billing' },
      api_version: '2026-09-30.endive',
      application: null,
      status: 'enabled',
      livemode: false,
    });
    expect(created.id).toMatch(/^we_/);
    expect(created.secret).toMatch(/^whsec_/);
    expect(Number.isInteger(created.created)).toBe(true);
    const retrieved = await client.webhookEndpoints.retrieve(created.id);
    expect(retrieved.secret).toBeUndefined();
    const { secret: _secret, lastResponse: _created, ...shown } = created;
    const { lastResponse: _retrieved, ...fetched } = retrieved;
    expect(fetched).toEqual(shown);
  });

  it('updates url, events, description, metadata and the disabled flag', async () => {
    const created = await client.webhookEndpoints.create({ url: hook, enabled_events: ['*'], metadata: { a: '1', b: '2' } });

    const updated = await client.webhookEndpoints.update(created.id, {
      url: 'http://127.0.0.1:9/other',
      enabled_events: ['billing.meter.created'],
      description: 'meters',
      metadata: { a: '', c: '3' },
      disabled: true,
    });

    expect(updated).toMatchObject({
      url: 'http://127.0.0.1:9/other',
      enabled_events: ['billing.meter.created'],
      description: 'meters',
      metadata: { b: '2', c: '3' },
      status: 'disabled',
    });
    const reenabled = await client.webhookEndpoints.update(created.id, { disabled: false, description: '' });
    expect(reenabled).toMatchObject({ status: 'enabled', description: null });
    expect(await client.webhookEndpoints.retrieve(created.id)).toMatchObject({ status: 'enabled', description: null });
  });

  it('lists newest first and auto-paginates across several pages', async () => {
    // Given a fresh platform with 12 endpoints
    const own = sdk((await newPlatform()).secret_key);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await own.webhookEndpoints.create({ url: `${hook}/${i}`, enabled_events: ['*'] })).id);

    // When listing pages of 5 and auto-paginating
    const first = await own.webhookEndpoints.list({ limit: 5 });
    const all = await own.webhookEndpoints.list({ limit: 5 }).autoPagingToArray({ limit: 100 });
    const before = await own.webhookEndpoints.list({ limit: 3, ending_before: ids[5] });

    // Then
    expect(first).toMatchObject({ object: 'list', has_more: true, url: '/v1/webhook_endpoints' });
    expect(first.data.map((endpoint) => endpoint.id)).toEqual(ids.slice(-5).reverse());
    expect(all.map((endpoint) => endpoint.id)).toEqual([...ids].reverse());
    expect(before.data.map((endpoint) => endpoint.id)).toEqual([ids[8], ids[7], ids[6]]);
    expect(before.has_more).toBe(true);
    expect(all.every((endpoint) => endpoint.secret === undefined)).toBe(true);
  });

  it('deletes an endpoint, and a second delete raises an invalid-request error', async () => {
    const created = await client.webhookEndpoints.create({ url: hook, enabled_events: ['*'] });

    const deleted = await client.webhookEndpoints.del(created.id);

    expect(deleted).toMatchObject({ id: created.id, object: 'webhook_endpoint', deleted: true });
    const second = await client.webhookEndpoints.del(created.id).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(second).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'id' });
    await expect(client.webhookEndpoints.retrieve(created.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('caps the number of endpoints per account and mode with a clear 400', async () => {
    const own = sdk((await newPlatform()).secret_key);
    const made = [];
    for (let i = 0; i < 16; i++) made.push(await own.webhookEndpoints.create({ url: hook, enabled_events: ['*'] }));

    const refused = await own.webhookEndpoints.create({ url: hook, enabled_events: ['*'] }).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused).toMatchObject({ statusCode: 400, code: 'webhook_endpoint_limit_reached' });
    await own.webhookEndpoints.del(made[0]!.id);
    await expect(own.webhookEndpoints.create({ url: hook, enabled_events: ['*'] })).resolves.toMatchObject({ object: 'webhook_endpoint' });
  });

  it('refuses unknown parameters, wrong types and unknown event types, naming the field', async () => {
    const unknown = await client.webhookEndpoints.create({ url: hook, enabled_events: ['*'], colour: 'red' } as never).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', code: 'parameter_unknown', param: 'colour' });

    const badEvent = await client.webhookEndpoints.create({ url: hook, enabled_events: ['charge.nonsense' as never] }).catch((e: unknown) => e);
    expect(badEvent).toMatchObject({ statusCode: 400, param: 'enabled_events[0]' });

    // Every event type the reference defines is accepted, emitted here or not (a configuration moved over)
    const moved = await client.webhookEndpoints.create({ url: hook, enabled_events: ['charge.failed', 'invoice.paid', 'customer.created'] });
    expect(moved.enabled_events).toEqual(['charge.failed', 'invoice.paid', 'customer.created']);
    await client.webhookEndpoints.del(moved.id);
    const thin = await client.v2.core.eventDestinations.create({
      name: 'moved',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v1.charge.failed', 'v2.core.account.created'],
      webhook_endpoint: { url: hook },
    });
    expect(thin.enabled_events).toEqual(['v1.charge.failed', 'v2.core.account.created']);
    await client.v2.core.eventDestinations.del(thin.id);

    const missing = await client.webhookEndpoints.create({ enabled_events: ['*'] } as never).catch((e: unknown) => e);
    expect(missing).toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'url' });

    const wrongType = await client.webhookEndpoints.update('we_x', { disabled: 'sometimes' as never }).catch((e: unknown) => e);
    expect(wrongType).toMatchObject({ statusCode: 400, param: 'disabled' });
  });
});

describe('isolation between platforms and modes', () => {
  it('emits no webhook_endpoint.* events and refuses them as subscriptions, as the reference has no such type', async () => {
    // Given a platform of its own with an endpoint for everything
    const own = sdk((await newPlatform()).secret_key);
    const everything = await own.webhookEndpoints.create({ url: hook, enabled_events: ['*'] });
    // When endpoints are created, changed and deleted
    const other = await own.webhookEndpoints.create({ url: hook, enabled_events: ['customer.created'] });
    await own.webhookEndpoints.update(other.id, { description: 'changed', disabled: true });
    await own.webhookEndpoints.del(other.id);
    await own.webhookEndpoints.update(everything.id, { metadata: { touched: 'yes' } });
    // Then no event records any of it
    expect((await own.events.list({ limit: 100 })).data).toEqual([]);
    // And an endpoint or a snapshot destination cannot subscribe to such a type
    for (const type of ['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.deleted']) {
      await expect(own.webhookEndpoints.create({ url: hook, enabled_events: [type as never] })).rejects.toMatchObject({
        statusCode: 400,
        param: 'enabled_events[0]',
      });
    }
    await expect(
      own.v2.core.eventDestinations.create({
        name: 'snapshots',
        type: 'webhook_endpoint',
        event_payload: 'snapshot',
        enabled_events: ['customer.created', 'webhook_endpoint.updated'],
        webhook_endpoint: { url: hook },
      }),
    ).rejects.toMatchObject({ statusCode: 400 });
  });

  it("gives another platform a 404 for this platform's endpoint, exactly as for a missing id", async () => {
    const owner = sdk((await newPlatform()).secret_key);
    const stranger = sdk((await newPlatform()).secret_key);
    const endpoint = await owner.webhookEndpoints.create({ url: hook, enabled_events: ['*'] });

    const foreign = await stranger.webhookEndpoints.retrieve(endpoint.id).catch((e: unknown) => e);
    const missing = await stranger.webhookEndpoints.retrieve('we_doesnotexist').catch((e: unknown) => e);

    expect(foreign).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect((foreign as Stripe.errors.StripeError).message).toBe(`No such webhook endpoint: '${endpoint.id}'`);
    expect((missing as Stripe.errors.StripeError).statusCode).toBe(404);
    await expect(stranger.webhookEndpoints.update(endpoint.id, { description: 'mine' })).rejects.toMatchObject({ statusCode: 404 });
    await expect(stranger.webhookEndpoints.del(endpoint.id)).rejects.toMatchObject({ statusCode: 404 });
    expect((await stranger.webhookEndpoints.list()).data).toEqual([]);
  });

  it('keeps test-mode and live-mode objects of one platform apart', async () => {
    // Given a platform with test and live keys, and a live endpoint
    const platform = await newPlatform();
    const liveKeys = await issueApiKeys(platformStore(), platform.account, { livemode: true });
    const live = sdk(liveKeys.secret_key);
    const test = sdk(platform.secret_key);
    const liveEndpoint = await live.webhookEndpoints.create({ url: 'https://example.test/hook', enabled_events: ['*'] });

    // Then the live object says so, and the test key cannot see it
    expect(liveEndpoint.livemode).toBe(true);
    await expect(test.webhookEndpoints.retrieve(liveEndpoint.id)).rejects.toMatchObject({ statusCode: 404 });
    expect((await test.webhookEndpoints.list()).data).toEqual([]);
    await expect(live.webhookEndpoints.create({ url: hook, enabled_events: ['*'] })).rejects.toMatchObject({ statusCode: 400, param: 'url' });
  });
});

describe('v1 over plain HTTP', () => {
  it('accepts HTTP Basic auth with the key as user name, as curl -u sends it', async () => {
    const platform = await newPlatform();
    const basic = `Basic ${Buffer.from(`${platform.secret_key}:`).toString('base64')}`;

    const created = await api('POST', '/v1/webhook_endpoints', {
      headers: { authorization: basic },
      form: `url=${encodeURIComponent(hook)}&enabled_events[0]=*`,
    });
    const listed = await api('GET', '/v1/webhook_endpoints?limit=1', { headers: { authorization: basic } });

    expect(created.status).toBe(200);
    expect(listed.body.data[0].id).toBe(created.body.id);
  });
});
