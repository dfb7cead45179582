import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { eventually } from '../support/wait.ts';

/** One attempt of the test stack's 1 + 3 (retry schedule `1,1,1`). */
const attemptsPerDelivery = 4;

describe('delivery attempts and resend', () => {
  let platform: CreatedPlatform;
  let client: Stripe;
  let receiver: WebhookReceiver;

  /** A GET of this service's additions through the official SDK, unmodified. */
  const get = (path: string, params?: Record<string, string>) =>
    client.rawRequest('GET', params ? `${path}?${new URLSearchParams(params)}` : path, null as never);

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  it('shows why a thin destination’s delivery failed, then a resend to the fixed receiver succeeds as a new delivery', async () => {
    // Given a thin destination whose receiver fails every request
    const destination = await client.v2.core.eventDestinations.create({
      name: 'failing',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v1.customer.created'],
      webhook_endpoint: { url: receiver.url },
      include: ['webhook_endpoint.signing_secret'],
    });
    receiver.failNext(1_000, 503);

    // When a change emits an event it subscribes to
    await client.customers.create({ name: 'Ada' });

    // Then its delivery shows while it is retried: the failed attempt's status, the receiver's answer, the next retry
    const retrying = await eventually(async () => {
      const page = await get(`/v2/service/event_destinations/${destination.id}/deliveries`, { status: 'pending' });
      const found = page.data[0];
      return found?.attempts.length > 0 && found.status === 'pending' ? found : undefined;
    });
    expect(retrying).toMatchObject({
      object: 'event_delivery',
      livemode: false,
      event: { type: 'v1.customer.created', payload: 'thin' },
      destination: { type: 'event_destination', id: destination.id },
      reason: 'subscribed',
      canceled_reason: null,
      next_attempt_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(retrying.attempts[0]).toEqual({
      attempted_at: expect.any(String),
      outcome: 'failed',
      http_status: 503,
      duration_ms: expect.any(Number),
      error: 'HTTP 503',
      response_body_excerpt: 'not now',
    });
    expect(Date.parse(retrying.next_attempt_at)).toBeGreaterThan(Date.parse(retrying.attempts.at(-1).attempted_at));

    // And once the retries are spent it has failed, every attempt recorded
    const failed = await eventually(async () => {
      const page = await get(`/v2/service/event_destinations/${destination.id}/deliveries`, { status: 'failed' });
      return page.data[0];
    });
    expect(failed).toMatchObject({ id: retrying.id, status: 'failed', next_attempt_at: null });
    expect(failed.attempts).toHaveLength(attemptsPerDelivery);
    const eventId: string = failed.event.id;
    expect((await get(`/v2/service/events/${eventId}/deliveries`)).data.map((delivery: { id: string }) => delivery.id)).toEqual([failed.id]);

    // When the receiver is fixed and the event resent to the destination
    receiver.failNext(0);
    const resent = await client.rawRequest('POST', `/v2/service/events/${eventId}/resend`, { event_destination: destination.id });

    // Then it is a new delivery, sent once, signed afresh with the destination's secret
    expect(resent).toMatchObject({ object: 'event_delivery', status: 'pending', reason: 'resend', event: { id: eventId } });
    expect(resent.id).not.toBe(failed.id);
    const [request] = await receiver.waitFor(1);
    const notification = client.parseEventNotification(
      request!.body,
      request!.headers['service-signature'] as string,
      destination.webhook_endpoint!.signing_secret!,
    );
    expect(notification).toMatchObject({ id: eventId, type: 'v1.customer.created' });
    const delivered = await eventually(async () => {
      const page = await get(`/v2/service/events/${eventId}/deliveries`);
      return page.data[0]?.status === 'succeeded' ? page : undefined;
    });
    expect(delivered.data.map((delivery: { id: string; status: string }) => [delivery.id, delivery.status])).toEqual([
      [resent.id, 'succeeded'],
      [failed.id, 'failed'],
    ]);
    expect(delivered.data[0].attempts).toEqual([
      expect.objectContaining({ outcome: 'succeeded', http_status: 200, response_body_excerpt: '{"received":true}' }),
    ]);
    expect(delivered.next_page_url).toBeNull();

    // And the destination's list filters by outcome, and pages through signed tokens
    const path = `/v2/service/event_destinations/${destination.id}/deliveries`;
    expect((await get(path, { status: 'succeeded' })).data.map((delivery: { id: string }) => delivery.id)).toEqual([resent.id]);
    expect((await get(path, { status: 'failed' })).data.map((delivery: { id: string }) => delivery.id)).toEqual([failed.id]);
    expect((await get(path, { status: 'canceled' })).data).toEqual([]);
    const first = await get(path, { limit: '1' });
    expect(first.data.map((delivery: { id: string }) => delivery.id)).toEqual([failed.id]);
    expect(first.next_page_url).toMatch(new RegExp(`^${path}\\?page=`));
    const second = await get(first.next_page_url);
    expect([second.data.map((delivery: { id: string }) => delivery.id), second.next_page_url]).toEqual([[resent.id], null]);
  });

  it('resends a snapshot event to a v1 endpoint as the command-line tool calls it, even to a disabled endpoint', async () => {
    // Given a v1 endpoint whose delivery of an event gave up
    const hooks = await startWebhookReceiver();
    try {
      const endpoint = await client.webhookEndpoints.create({ url: hooks.url, enabled_events: ['customer.created'] });
      hooks.failNext(1_000);
      const customer = await client.customers.create({ name: 'Grace' });
      const failed = await eventually(async () => (await get(`/v2/service/webhook_endpoints/${endpoint.id}/deliveries`, { status: 'failed' })).data[0]);
      expect(failed).toMatchObject({ event: { type: 'customer.created', payload: 'snapshot' }, destination: { type: 'webhook_endpoint', id: endpoint.id } });
      expect((await client.events.retrieve(failed.event.id)).pending_webhooks).toBe(0);

      // When the endpoint is disabled, the receiver fixed, and `stripe events resend evt_… --webhook-endpoint we_…` runs
      await client.webhookEndpoints.update(endpoint.id, { disabled: true });
      hooks.failNext(0);
      const event = await client.rawRequest('POST', `/v1/events/${failed.event.id}/retry`, { webhook_endpoint: endpoint.id });

      // Then the answer is the event, and the endpoint receives it, verifiable with its secret
      expect(event).toMatchObject({ object: 'event', id: failed.event.id, type: 'customer.created', pending_webhooks: 1 });
      const [request] = await hooks.waitFor(1);
      const received = client.webhooks.constructEvent(request!.body, request!.headers['service-signature'] as string, endpoint.secret!);
      expect(received).toMatchObject({ id: failed.event.id, data: { object: { id: customer.id } } });
      const settled = await eventually(async () => {
        const stored = await client.events.retrieve(failed.event.id);
        return stored.pending_webhooks === 0 ? stored : undefined;
      });
      expect(settled.id).toBe(failed.event.id);
      const succeeded = (await get(`/v2/service/webhook_endpoints/${endpoint.id}/deliveries`, { status: 'succeeded' })).data;
      expect(succeeded).toEqual([expect.objectContaining({ reason: 'resend', event: expect.objectContaining({ id: failed.event.id }) })]);
    } finally {
      await hooks.stop();
    }
  });

  it('refuses what it cannot do with a clear 400, and shows another platform nothing', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['customer.updated'] });
    const customer = await client.customers.create({ name: 'Linus' });
    const snapshot = (await client.events.list({ type: 'customer.created', limit: 1 })).data[0]!;
    const thin = await eventually(async () => (await client.v2.core.events.list({ object_id: customer.id } as never)).data[0]);
    const key = platform.secret_key;

    const outcomes = [
      // The command-line tool's own listener is not there: a webhook endpoint must be named
      await api('POST', `/v1/events/${snapshot.id}/retry`, { key, form: 'for_stripecli=true' }),
      // A v1 endpoint takes snapshot events only
      await api('POST', `/v2/service/events/${thin!.id}/resend`, { key, json: { webhook_endpoint: endpoint.id } }),
      // Exactly one target
      await api('POST', `/v2/service/events/${snapshot.id}/resend`, { key, json: { webhook_endpoint: endpoint.id, event_destination: 'ed_1' } }),
      await api('GET', `/v2/service/webhook_endpoints/${endpoint.id}/deliveries?status=delivered`, { key }),
      await api('GET', `/v2/service/webhook_endpoints/${endpoint.id}/deliveries?page=forged.token`, { key }),
    ];
    // v1 errors name the parameter in `param`, v2 errors in the message
    expect(outcomes.map((answer) => [answer.status, answer.body.error?.code, answer.body.error?.param ?? answer.body.error?.message])).toEqual([
      [400, 'parameter_missing', 'webhook_endpoint'],
      [400, 'parameter_invalid', expect.stringContaining('receives snapshot events only')],
      [400, expect.any(String), expect.stringContaining('exactly one of event_destination and webhook_endpoint')],
      [400, expect.any(String), expect.stringContaining('status')],
      [400, 'invalid_page_token', expect.any(String)],
    ]);

    // Another platform's key: the same ids are unknown
    const stranger = (await newPlatform()).secret_key;
    for (const [method, path, json] of [
      ['GET', `/v2/service/events/${snapshot.id}/deliveries`],
      ['GET', `/v2/service/webhook_endpoints/${endpoint.id}/deliveries`],
      ['POST', `/v2/service/events/${snapshot.id}/resend`, { webhook_endpoint: endpoint.id }],
    ] as const) {
      const answer = await api(method, path, { key: stranger, ...(json ? { json } : {}) });
      expect([path, answer.status]).toEqual([path, 404]);
    }
    const foreignEvent = await api('POST', `/v1/events/${snapshot.id}/retry`, { key: stranger, form: `webhook_endpoint=${endpoint.id}` });
    expect(foreignEvent.status).toBe(404);
  });
});
