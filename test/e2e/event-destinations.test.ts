import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, sdk, stack } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

describe('v2 event destinations through the official SDK', () => {
  let platform: CreatedPlatform;
  let client: Stripe;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    platform = await newPlatform();
    client = sdk(platform.secret_key);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  const webhookDestination = (overrides: Record<string, unknown> = {}) =>
    client.v2.core.eventDestinations.create({
      name: 'hooks',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: receiver.url },
      ...overrides,
    } as Stripe.V2.Core.EventDestinationCreateParams);

  it('creates an enabled webhook destination that shows its secret only when asked, on create', async () => {
    const created = await webhookDestination({
      include: ['webhook_endpoint.signing_secret', 'webhook_endpoint.url'],
      events_from: ['@self'],
      metadata: { a: '1' },
    });

    expect(created).toMatchObject({
      object: 'v2.core.event_destination',
      name: 'hooks',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      status: 'enabled',
      status_details: null,
      events_from: ['self'],
      livemode: false,
      metadata: { a: '1' },
      cloudone_eventbridge: null,
      cloudtwo_event_grid: null,
      webhook_endpoint: { url: receiver.url },
    });
    expect(created.webhook_endpoint?.signing_secret).toMatch(/^whsec_/);
    expect(created.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const retrieved = await client.v2.core.eventDestinations.retrieve(created.id);
    expect(retrieved.webhook_endpoint).toEqual({ signing_secret: null, url: null });
    const withUrl = await client.v2.core.eventDestinations.retrieve(created.id, { include: ['webhook_endpoint.url'] });
    expect(withUrl.webhook_endpoint).toEqual({ signing_secret: null, url: receiver.url });
  });

  it('refuses to include the signing secret anywhere but create', async () => {
    const created = await webhookDestination();
    const answer = await api('GET', `/v2/core/event_destinations/${created.id}?include[0]=webhook_endpoint.signing_secret`, { key: platform.secret_key });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('only be included when the destination is created');
  });

  it('updates, disables with reason user, enables, and deletes', async () => {
    const created = await webhookDestination();

    const updated = await client.v2.core.eventDestinations.update(created.id, {
      name: 'renamed',
      description: 'd',
      metadata: { k: 'v' },
      include: ['webhook_endpoint.url'],
    });
    const disabled = await client.v2.core.eventDestinations.disable(created.id);
    const enabled = await client.v2.core.eventDestinations.enable(created.id);
    await client.v2.core.eventDestinations.ping(created.id);
    const deleted = await client.v2.core.eventDestinations.del(created.id);
    // A ping right after the delete finds no destination: pings may act on a copy read in the last second,
    // but a write by this stack forgets that copy.
    const pingAfterDelete = await client.v2.core.eventDestinations.ping(created.id).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(updated).toMatchObject({ name: 'renamed', description: 'd', metadata: { k: 'v' }, webhook_endpoint: { url: receiver.url } });
    expect(disabled).toMatchObject({ status: 'disabled', status_details: { disabled: { reason: 'user' } } });
    expect(enabled).toMatchObject({ status: 'enabled', status_details: null });
    expect(deleted).toMatchObject({ id: created.id, object: 'v2.core.event_destination', deleted: true });
    expect(pingAfterDelete).toMatchObject({ statusCode: 404, code: 'not_found' });
  });

  it('answers 404 not_found for every operation on a missing id', async () => {
    const calls = [
      () => client.v2.core.eventDestinations.retrieve('ed_missing'),
      () => client.v2.core.eventDestinations.update('ed_missing', { name: 'x' }),
      () => client.v2.core.eventDestinations.enable('ed_missing'),
      () => client.v2.core.eventDestinations.disable('ed_missing'),
      () => client.v2.core.eventDestinations.ping('ed_missing'),
      () => client.v2.core.eventDestinations.del('ed_missing'),
      () => client.v2.core.events.retrieve('evt_missing'),
    ];
    for (const call of calls) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ statusCode: 404, code: 'not_found' });
    }
  });

  it('answers 409 idempotency_error for a reused key with other parameters', async () => {
    const key = `k-${Date.now()}`;
    await webhookDestination({ name: 'first' }).then(() => undefined);
    const first = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      headers: { 'idempotency-key': key },
      json: {
        name: 'a',
        type: 'webhook_endpoint',
        event_payload: 'thin',
        enabled_events: ['v2.core.event_destination.ping'],
        webhook_endpoint: { url: receiver.url },
      },
    });
    const second = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      headers: { 'idempotency-key': key },
      json: {
        name: 'b',
        type: 'webhook_endpoint',
        event_payload: 'thin',
        enabled_events: ['v2.core.event_destination.ping'],
        webhook_endpoint: { url: receiver.url },
      },
    });
    expect(first.status).toBe(200);
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_error' });
    expect(second.headers.get('stripe-should-retry')).toBe('false');

    // The official SDK raises its IdempotencyError at once: it would retry a 409, but is told not to
    const started = Date.now();
    const error = await client.v2.core.eventDestinations
      .create(
        {
          name: 'c',
          type: 'webhook_endpoint',
          event_payload: 'thin',
          enabled_events: ['v2.core.event_destination.ping'],
          webhook_endpoint: { url: receiver.url },
        },
        { idempotencyKey: key },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(error).toMatchObject({ statusCode: 409, code: 'idempotency_error' });
    expect(Date.now() - started).toBeLessThan(450);
  });

  it('lists with include and limit carried through next_page_url', async () => {
    const own = sdk((await newPlatform()).secret_key);
    for (let i = 0; i < 5; i++) {
      await own.v2.core.eventDestinations.create({
        name: `d${i}`,
        type: 'webhook_endpoint',
        event_payload: 'thin',
        enabled_events: ['v2.core.event_destination.ping'],
        webhook_endpoint: { url: receiver.url },
      });
    }
    const seen: Stripe.V2.Core.EventDestination[] = [];
    for await (const destination of own.v2.core.eventDestinations.list({ limit: 2, include: ['webhook_endpoint.url'] })) seen.push(destination);

    expect(seen.map((destination) => destination.name)).toEqual(['d4', 'd3', 'd2', 'd1', 'd0']);
    expect(seen.every((destination) => destination.webhook_endpoint?.url === receiver.url)).toBe(true);
  });

  it('refuses forged, altered and foreign page tokens: a signing secret cannot be listed, nor a huge limit asked', async () => {
    const owner = await newPlatform();
    const own = sdk(owner.secret_key);
    for (let i = 0; i < 3; i++) {
      await own.v2.core.eventDestinations.create({
        name: `p${i}`,
        type: 'webhook_endpoint',
        event_payload: 'thin',
        enabled_events: ['v2.core.event_destination.ping'],
        webhook_endpoint: { url: receiver.url },
      });
    }
    const first = await api('GET', '/v2/core/event_destinations?limit=1', { key: owner.secret_key });
    const token = new URL(first.body.next_page_url, stack.baseUrl).searchParams.get('page')!;
    const [payload, mac] = token.split('.');
    const contents = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    const forgedPayload = Buffer.from(JSON.stringify({ ...contents, params: { include: ['webhook_endpoint.signing_secret'], limit: 10_000_000 } })).toString(
      'base64url',
    );
    // The shape the service once accepted: plain base64 JSON, no signature.
    const unsigned = Buffer.from(JSON.stringify({ limit: 10_000_000, include: ['webhook_endpoint.signing_secret'] })).toString('base64url');
    const stranger = await newPlatform();

    const answers = await Promise.all([
      api('GET', `/v2/core/event_destinations?page=${forgedPayload}.${mac}`, { key: owner.secret_key }),
      api('GET', `/v2/core/event_destinations?page=${unsigned}`, { key: owner.secret_key }),
      api('GET', `/v2/core/event_destinations?page=${token}x`, { key: owner.secret_key }),
      api('GET', `/v2/core/event_destinations?page=${'A'.repeat(3000)}`, { key: owner.secret_key }),
      api('GET', `/v2/core/event_destinations?page=${token}`, { key: stranger.secret_key }),
      api('GET', `/v2/core/accounts?page=${token}`, { key: owner.secret_key }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_page_token' });
      expect(JSON.stringify(answer.body)).not.toContain('whsec_');
    }
    const genuine = await api('GET', `/v2/core/event_destinations?page=${token}`, { key: owner.secret_key });
    expect(genuine.status).toBe(200);
    expect(genuine.body.data).toHaveLength(1);
    expect(genuine.body.data[0].webhook_endpoint.signing_secret).toBeNull();
  });

  it('validates the configuration object against the type and the events against the payload', async () => {
    const missingConfig = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      json: { name: 'x', type: 'webhook_endpoint', event_payload: 'thin', enabled_events: ['v2.core.event_destination.ping'] },
    });
    const snapshotTypeOnThin = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      json: { name: 'x', type: 'webhook_endpoint', event_payload: 'thin', enabled_events: ['customer.created'], webhook_endpoint: { url: receiver.url } },
    });
    const versionOnThin = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      json: {
        name: 'x',
        type: 'webhook_endpoint',
        event_payload: 'thin',
        snapshot_api_version: '2026-10-28.endive',
        enabled_events: ['v2.core.event_destination.ping'],
        webhook_endpoint: { url: receiver.url },
      },
    });
    const badEventsFrom = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      json: {
        name: 'x',
        type: 'webhook_endpoint',
        event_payload: 'thin',
        events_from: ['@everyone'],
        enabled_events: ['v2.core.event_destination.ping'],
        webhook_endpoint: { url: receiver.url },
      },
    });
    for (const answer of [missingConfig, snapshotTypeOnThin, versionOnThin, badEventsFrom]) {
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.error).sort()).toEqual(['code', 'message', 'type']);
    }
    expect(missingConfig.body.error.code).toBe('parameter_missing');
  });

  it('refuses @organization_members scopes with a 400 that says why: there are no organizations here', async () => {
    const client = sdk(platform.secret_key);
    for (const scope of ['@organization_members', '@organization_members/@accounts']) {
      const refused = await client.v2.core.eventDestinations
        .create({
          name: 'org',
          type: 'webhook_endpoint',
          event_payload: 'thin',
          events_from: ['@self', scope],
          enabled_events: ['v2.core.event_destination.ping'],
          webhook_endpoint: { url: receiver.url },
        })
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ type: 'StripeInvalidRequestError', statusCode: 400 });
      expect((refused as Error).message).toContain('no organizations');
      expect((refused as Error).message).toContain(scope);
    }
  });

  it("subscribes to every event type of the spec's table, including those nothing here emits yet", async () => {
    const types = ['v2.commerce.product_catalog.imports.failed', 'v2.reporting.report_run.created', 'v2.core.account.created'];
    const destination = await sdk(platform.secret_key).v2.core.eventDestinations.create({
      name: 'every spec type',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: types,
      webhook_endpoint: { url: receiver.url },
    });
    expect(destination.enabled_events).toEqual(types);
    await sdk(platform.secret_key).v2.core.eventDestinations.del(destination.id);
  });

  it('keeps destinations of other platforms invisible', async () => {
    const created = await webhookDestination();
    const stranger = sdk((await newPlatform()).secret_key);
    await expect(stranger.v2.core.eventDestinations.retrieve(created.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(stranger.v2.core.eventDestinations.ping(created.id)).rejects.toMatchObject({ statusCode: 404 });
    expect((await stranger.v2.core.eventDestinations.list()).data).toEqual([]);
  });
});
