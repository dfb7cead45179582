import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { clockPasses, eventually, quiesce } from '../support/wait.ts';

describe('delivery to webhook destinations and v1 endpoints', () => {
  let platform: CreatedPlatform;
  let client: Stripe;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  it('pings a destination with a signed thin event that the SDK verifies, and fetchEvent returns it in full', async () => {
    // Given a thin webhook destination whose secret we asked for
    const destination = await client.v2.core.eventDestinations.create({
      name: 'pinged',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: receiver.url },
      include: ['webhook_endpoint.signing_secret'],
    });
    const secret = destination.webhook_endpoint!.signing_secret!;

    // When it is pinged
    const ping = await client.v2.core.eventDestinations.ping(destination.id);

    // Then the answer is the event and the receiver gets it, signed
    expect(ping).toMatchObject({
      object: 'v2.core.event',
      type: 'v2.core.event_destination.ping',
      changes: null,
      data: {},
      context: null,
      related_object: { id: destination.id, type: 'v2.core.event_destination', url: `/v2/core/event_destinations/${destination.id}` },
      reason: { type: 'request', request: { id: expect.stringMatching(/^req_/) } },
    });
    const [request] = await receiver.waitFor(1);
    const notification = client.parseEventNotification(request!.body, request!.headers['service-signature'] as string, secret);
    expect(notification).toMatchObject({ id: ping.id, type: 'v2.core.event_destination.ping' });
    expect(JSON.parse(request!.body)).not.toHaveProperty('data');
    const fetched = await notification.fetchEvent();
    expect(fetched).toMatchObject({ id: ping.id, data: {}, changes: null });
    expect(() => client.parseEventNotification(request!.body, request!.headers['service-signature'] as string, 'whsec_wrong')).toThrow();
  });

  it('names the causing request on a v2 event, with its idempotency key as a string (empty when none was sent)', async () => {
    // Given a destination
    const destination = await client.v2.core.eventDestinations.create({
      name: 'keyed',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: receiver.url },
    });
    // When it is pinged through the SDK (which sends a key), with a key of ours, and raw without any
    const sdkPing = await client.v2.core.eventDestinations.ping(destination.id);
    const keyedPing = await client.v2.core.eventDestinations.ping(destination.id, {}, { idempotencyKey: 'ping-key-1' });
    const bare = await api('POST', `/v2/core/event_destinations/${destination.id}/ping`, { key: platform.secret_key });
    // Then each event's reason carries the key it was sent with, and '' for none, never null
    expect(sdkPing.reason?.request?.idempotency_key).toMatch(/^stripe-node-retry-[0-9a-f-]{36}$/);
    expect((await client.v2.core.events.retrieve(keyedPing.id)).reason).toEqual({
      type: 'request',
      request: { id: expect.stringMatching(/^req_/), idempotency_key: 'ping-key-1' },
    });
    expect(bare.status).toBe(200);
    const fetched = await client.v2.core.events.retrieve(bare.body.id);
    expect(fetched.reason).toEqual({ type: 'request', request: { id: bare.headers.get('request-id'), idempotency_key: '' } });
  });

  it('delivers a snapshot event to a subscribed v1 endpoint, verifiable with constructEvent', async () => {
    // Given a v1 endpoint subscribed to product updates
    const own = sdk((await newPlatform()).secret_key);
    const hooks = await startWebhookReceiver();
    try {
      const endpoint = await own.webhookEndpoints.create({ url: hooks.url, enabled_events: ['product.updated'] });
      const product = await own.products.create({ name: 'Described later' });

      // When the product changes
      await own.products.update(product.id, { description: 'now described' });

      // Then it receives the snapshot event with previous_attributes, and pending_webhooks settles
      const [request] = await hooks.waitFor(1);
      const event = own.webhooks.constructEvent(request!.body, request!.headers['service-signature'] as string, endpoint.secret!);
      expect(event).toMatchObject({
        object: 'event',
        type: 'product.updated',
        data: { object: { id: product.id, description: 'now described' }, previous_attributes: { description: null } },
        request: { id: expect.stringMatching(/^req_/) },
      });
      const settled = await eventually(async () => {
        const stored = await own.events.retrieve(event.id);
        return stored.pending_webhooks === 0 ? stored : undefined;
      });
      expect(settled.id).toBe(event.id);
    } finally {
      await hooks.stop();
    }
  });

  it('retries a receiver that fails its first attempts until it gets the event', async () => {
    const own = sdk((await newPlatform()).secret_key);
    const hooks = await startWebhookReceiver();
    try {
      const destination = await own.v2.core.eventDestinations.create({
        name: 'flaky',
        type: 'webhook_endpoint',
        event_payload: 'thin',
        enabled_events: ['v2.core.event_destination.ping'],
        webhook_endpoint: { url: hooks.url },
      });
      hooks.failNext(2, 503);

      const ping = await own.v2.core.eventDestinations.ping(destination.id);

      const [request] = await hooks.waitFor(1, 20_000);
      expect(JSON.parse(request!.body).id).toBe(ping.id);
    } finally {
      await hooks.stop();
    }
  });

  it('delivers only to enabled endpoints that subscribed to the type', async () => {
    const own = sdk((await newPlatform()).secret_key);
    const hooks = await startWebhookReceiver();
    try {
      // Given an endpoint for everything, a disabled one for product creations, and one for customers
      const everything = await own.webhookEndpoints.create({ url: `${hooks.url}?everything`, enabled_events: ['*'] });
      const creations = await own.webhookEndpoints.create({ url: `${hooks.url}?creations`, enabled_events: ['product.created'] });
      await own.webhookEndpoints.update(creations.id, { disabled: true });
      await own.webhookEndpoints.create({ url: `${hooks.url}?customers`, enabled_events: ['customer.created'] });

      // When a product is created and changed
      const product = await own.products.create({ name: 'Heard' });
      await own.products.update(product.id, { name: 'Heard again' });

      // Then only the catch-all endpoint heard of them, the disabled one nothing, and no one of the
      // endpoints' own changes (the reference has no webhook_endpoint.* events)
      await hooks.waitFor(2);
      await quiesce({ queues: ['deliveries'] });
      const seen = hooks.received.map((request) => [request.path, JSON.parse(request.body).type, JSON.parse(request.body).data.object.id]);
      expect(seen).toEqual([
        ['/hook?everything', 'product.created', product.id],
        ['/hook?everything', 'product.updated', product.id],
      ]);
      expect(hooks.received[0]!.headers['user-agent']).toContain('Service');
      expect(everything.status).toBe('enabled');
    } finally {
      await hooks.stop();
    }
  });
});

describe('snapshot destinations and platform isolation', () => {
  it("renders snapshot events as the destination's snapshot_api_version, signed with its secret", async () => {
    const own = sdk((await newPlatform()).secret_key);
    const hooks = await startWebhookReceiver();
    try {
      const destination = await own.v2.core.eventDestinations.create({
        name: 'snapshots',
        type: 'webhook_endpoint',
        event_payload: 'snapshot',
        snapshot_api_version: '2026-09-30.endive',
        enabled_events: ['product.created'],
        webhook_endpoint: { url: hooks.url },
        include: ['webhook_endpoint.signing_secret'],
      } as Stripe.V2.Core.EventDestinationCreateParams);
      expect(destination).toMatchObject({ event_payload: 'snapshot', snapshot_api_version: '2026-09-30.endive' });

      const product = await own.products.create({ name: 'Snapshot' });

      const [request] = await hooks.waitFor(1);
      const event = own.webhooks.constructEvent(request!.body, request!.headers['service-signature'] as string, destination.webhook_endpoint!.signing_secret!);
      expect(event).toMatchObject({ type: 'product.created', api_version: '2026-09-30.endive', data: { object: { id: product.id } } });
    } finally {
      await hooks.stop();
    }
  });

  it("never delivers one platform's events to another platform's endpoints", async () => {
    const hooks = await startWebhookReceiver();
    try {
      const mine = sdk((await newPlatform()).secret_key);
      const theirs = sdk((await newPlatform()).secret_key);
      await theirs.webhookEndpoints.create({ url: `${hooks.url}?theirs`, enabled_events: ['*'] });
      await mine.webhookEndpoints.create({ url: `${hooks.url}?mine`, enabled_events: ['*'] });
      const watched = await mine.products.create({ name: 'Mine' });
      await mine.products.update(watched.id, { description: 'changed' });

      await hooks.waitFor(2);
      await quiesce({ queues: ['deliveries'] });
      expect(hooks.received.map((request) => request.path)).toEqual(['/hook?mine', '/hook?mine']);
    } finally {
      await hooks.stop();
    }
  });
});

describe('v1 and v2 event retrieval', () => {
  it('lists and filters events, and hides them from other platforms', async () => {
    const platform = await newPlatform();
    const own = sdk(platform.secret_key);
    const product = await own.products.create({ name: 'Listed' });
    await own.products.update(product.id, { description: 'x' });
    await own.products.del(product.id);

    const all = await own.events.list({ limit: 10 });
    const updates = await own.events.list({ type: 'product.updated' });
    const wildcard = await own.events.list({ type: 'product.*' });
    const several = await own.events.list({ types: ['product.created', 'product.deleted'] });

    expect(all.data.map((event) => event.type)).toEqual(['product.deleted', 'product.updated', 'product.created']);
    expect(updates.data).toHaveLength(1);
    expect(wildcard.data).toHaveLength(3);
    expect(several.data.map((event) => event.type)).toEqual(['product.deleted', 'product.created']);
    const stranger = sdk((await newPlatform()).secret_key);
    await expect(stranger.events.retrieve(all.data[0]!.id)).rejects.toMatchObject({ statusCode: 404 });
    const both = await api('GET', '/v1/events?type=a&types[0]=b', { key: platform.secret_key });
    expect(both.status).toBe(400);
  });

  it('filters events by creation time, v1 in Unix seconds and v2 in RFC 3339', async () => {
    const own = sdk((await newPlatform()).secret_key);
    const first = await own.products.create({ name: 'Timed' });
    // The next event is created in a later second of the stack's clock than the first
    const boundary = (await own.events.list({ limit: 1 })).data[0]!.created + 1;
    await clockPasses(boundary);
    await own.products.update(first.id, { description: 'later' });

    const before = await own.events.list({ created: { lt: boundary } });
    const after = await own.events.list({ created: { gte: boundary } });
    expect(before.data.map((event) => event.type)).toEqual(['product.created']);
    expect(after.data.map((event) => event.type)).toEqual(['product.updated']);

    const destination = await own.v2.core.eventDestinations.create({
      name: 't',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: 'http://127.0.0.1:9/t' },
    });
    const ping = await own.v2.core.eventDestinations.ping(destination.id);
    const listed = await own.v2.core.events.list({ created: { gte: ping.created } } as never);
    const none = await own.v2.core.events.list({ created: { gt: ping.created } } as never);
    expect(listed.data.map((event) => event.id)).toEqual([ping.id]);
    expect(none.data).toEqual([]);
  });

  it('lists thin events by type and related object', async () => {
    const own = sdk((await newPlatform()).secret_key);
    const a = await own.v2.core.eventDestinations.create({
      name: 'a',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: 'http://127.0.0.1:9/a' },
    });
    const b = await own.v2.core.eventDestinations.create({
      name: 'b',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: 'http://127.0.0.1:9/b' },
    });
    const pings = [
      await own.v2.core.eventDestinations.ping(a.id),
      await own.v2.core.eventDestinations.ping(b.id),
      await own.v2.core.eventDestinations.ping(a.id),
    ];

    const ofA = [];
    for await (const event of own.v2.core.events.list({ object_id: a.id, limit: 1 })) ofA.push(event.id);
    const byType = await own.v2.core.events.list({ types: ['v2.core.event_destination.ping'] });

    expect(ofA).toEqual([pings[2]!.id, pings[0]!.id]);
    expect(byType.data.map((event) => event.id)).toEqual([pings[2]!.id, pings[1]!.id, pings[0]!.id]);
  });
});
