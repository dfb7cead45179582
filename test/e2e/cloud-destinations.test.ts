import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { dynamoCloudtwoAuthorizationStore } from '#shared/data/event-destination-repository.ts';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, sdk, stack, stackTable } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

const busName = stack.env.EVENT_BUS_NAME!;

async function entriesFrom(source: string) {
  const response = await fetch(`${stack.eventBridgeEndpoint}/entries?source=${encodeURIComponent(source)}`);
  return (await response.json()) as Array<{ source: string; detailType: string; detail: Record<string, unknown>; eventBusName: string }>;
}

async function gridEvents(topic: string) {
  const response = await fetch(`${stack.eventGridEndpoint}/events?topic=${encodeURIComponent(topic)}`);
  return (await response.json()) as Array<{ topic: string; event: { id: string; type: string; specversion: string; data: Record<string, unknown> } }>;
}

// One file, run in order: these tests remove and restore the shared local bus.
describe('cloudone EventBridge destinations', () => {
  let client: Stripe;
  let key: string;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
  });
  afterAll(() => fetch(`${stack.eventBridgeEndpoint}/buses/${busName}`, { method: 'PUT' }));

  const create = () =>
    client.v2.core.eventDestinations.create({
      name: 'bus',
      type: 'cloudone_eventbridge',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      cloudone_eventbridge: { cloudone_account_id: '123456789012', cloudone_region: 'us-east-1' },
    } as unknown as Stripe.V2.Core.EventDestinationCreateParams);

  it('answers with the event source ARN in status pending, then puts events with the right source, type and detail', async () => {
    // Given
    const destination = (await create()) as unknown as Record<string, any>;
    expect(destination.cloudone_eventbridge).toMatchObject({
      cloudone_account_id: '123456789012',
      cloudone_event_source_arn: expect.stringContaining(`event-source/`),
      cloudone_event_source_status: 'pending',
    });
    expect(destination.webhook_endpoint).toBeNull();
    const sourceName = (destination.cloudone_eventbridge.cloudone_event_source_arn as string).split('event-source/')[1]!;

    // When
    const ping = await client.v2.core.eventDestinations.ping(destination.id);

    // Then the local bus received it and the source became active
    const [entry] = await eventually(async () => {
      const entries = await entriesFrom(sourceName);
      return entries.length > 0 ? entries : undefined;
    });
    expect(entry).toMatchObject({
      eventBusName: busName,
      source: sourceName,
      detailType: 'v2.core.event_destination.ping',
      detail: { id: ping.id, object: 'v2.core.event' },
    });
    await eventually(async () => {
      const current = (await client.v2.core.eventDestinations.retrieve(destination.id)) as unknown as Record<string, any>;
      return current.cloudone_eventbridge.cloudone_event_source_status === 'active' ? current : undefined;
    });
  });

  it('marks the source deleted and disables the destination when the bus is gone', async () => {
    const destination = await create();
    await fetch(`${stack.eventBridgeEndpoint}/buses/${busName}`, { method: 'DELETE' });

    await client.v2.core.eventDestinations.ping(destination.id);

    const disabled = await eventually(async () => {
      const current = (await client.v2.core.eventDestinations.retrieve(destination.id)) as unknown as Record<string, any>;
      return current.status === 'disabled' ? current : undefined;
    });
    expect(disabled).toMatchObject({
      status_details: { disabled: { reason: 'no_cloudone_event_source_exists' } },
      cloudone_eventbridge: { cloudone_event_source_status: 'deleted' },
    });
    // And its deliveries show the attempt that found the bus gone, not retried (retrying cannot help)
    const failed = await eventually(
      async () => (await api('GET', `/v2/service/event_destinations/${destination.id}/deliveries?status=failed`, { key })).body.data[0],
    );
    expect(failed).toMatchObject({
      reason: 'ping',
      next_attempt_at: null,
      attempts: [{ outcome: 'failed', http_status: null, error: expect.stringContaining('ResourceNotFoundException'), response_body_excerpt: null }],
    });

    // When the bus is back and the user enables the destination, the source stays deleted until a delivery gets through
    await fetch(`${stack.eventBridgeEndpoint}/buses/${busName}`, { method: 'PUT' });
    const enabled = (await client.v2.core.eventDestinations.enable(destination.id)) as unknown as Record<string, any>;
    expect(enabled).toMatchObject({ status: 'enabled', status_details: null, cloudone_eventbridge: { cloudone_event_source_status: 'deleted' } });
    await client.v2.core.eventDestinations.ping(destination.id);
    // Then the source is active again
    const restored = await eventually(async () => {
      const current = (await client.v2.core.eventDestinations.retrieve(destination.id)) as unknown as Record<string, any>;
      return current.cloudone_eventbridge.cloudone_event_source_status === 'active' ? current : undefined;
    });
    expect(restored).toMatchObject({ status: 'enabled', status_details: null });
  });

  it('validates the account id and region', async () => {
    const platform = await newPlatform();
    const answer = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      json: {
        name: 'x',
        type: 'cloudone_eventbridge',
        event_payload: 'thin',
        enabled_events: ['v2.core.event_destination.ping'],
        cloudone_eventbridge: { cloudone_account_id: 'abc', cloudone_region: 'us-east-1' },
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('cloudone_eventbridge.cloudone_account_id');
  });
});

describe('cloudtwo Event Grid destinations', () => {
  let platform: CreatedPlatform;
  const grid = { cloudtwo_region: 'westeurope', cloudtwo_resource_group_name: 'events', cloudtwo_subscription_id: 'sub-1' };
  const body = (config: Record<string, string>) => ({
    name: 'grid',
    type: 'cloudtwo_event_grid',
    event_payload: 'thin',
    enabled_events: ['v2.core.event_destination.ping'],
    cloudtwo_event_grid: config,
  });
  beforeAll(async () => {
    platform = await newPlatform();
  });

  it('refuses creation without a partner authorization, with an expired one, and with a configuration matching none', async () => {
    const none = await api('POST', '/v2/core/event_destinations', { key: platform.secret_key, json: body(grid) });
    const authorizations = dynamoCloudtwoAuthorizationStore(stackTable());
    await authorizations.put(platform.account, { subscriptionId: 'sub-1', resourceGroupName: 'events', expiresAt: Date.now() - 1000 });
    const expired = await api('POST', '/v2/core/event_destinations', { key: platform.secret_key, json: body(grid) });
    const mismatch = await api('POST', '/v2/core/event_destinations', { key: platform.secret_key, json: body({ ...grid, cloudtwo_subscription_id: 'sub-2' }) });

    expect([none.status, expired.status, mismatch.status]).toEqual([400, 400, 400]);
    expect(none.body.error.code).toBe('invalid_cloudtwo_partner_authorization');
    expect(expired.body.error.code).toBe('expired_cloudtwo_partner_authorization');
    expect(mismatch.body.error.code).toBe('invalid_cloudtwo_partner_configuration');
  });

  it('delivers CloudEvents to the partner topic, activates it, and disables the destination once the topic is gone', async () => {
    // Given an authorized platform and a destination
    await dynamoCloudtwoAuthorizationStore(stackTable()).put(platform.account, {
      subscriptionId: 'sub-9',
      resourceGroupName: 'rg',
      expiresAt: Date.now() + 60_000,
    });
    const created = await api('POST', '/v2/core/event_destinations', {
      key: platform.secret_key,
      json: body({ cloudtwo_region: 'westeurope', cloudtwo_resource_group_name: 'rg', cloudtwo_subscription_id: 'sub-9' }),
    });
    expect(created.body.cloudtwo_event_grid).toMatchObject({ cloudtwo_partner_topic_status: 'never_activated', cloudtwo_subscription_id: 'sub-9' });
    const topic = created.body.cloudtwo_event_grid.cloudtwo_partner_topic_name as string;
    const client = sdk(platform.secret_key);

    // When pinged
    const ping = await client.v2.core.eventDestinations.ping(created.body.id);

    // Then the topic got a CloudEvent and the destination is activated
    const [received] = await eventually(async () => {
      const events = await gridEvents(topic);
      return events.length > 0 ? events : undefined;
    });
    expect(received!.event).toMatchObject({ specversion: '1.0', id: ping.id, type: 'v2.core.event_destination.ping', data: { id: ping.id } });
    await eventually(async () => {
      const current = (await client.v2.core.eventDestinations.retrieve(created.body.id)) as unknown as Record<string, any>;
      return current.cloudtwo_event_grid.cloudtwo_partner_topic_status === 'activated' ? current : undefined;
    });

    // And once the topic is removed, the next delivery disables the destination
    await fetch(`${stack.eventGridEndpoint}/partner-topics/${topic}`, { method: 'DELETE' });
    await client.v2.core.eventDestinations.ping(created.body.id);
    const disabled = await eventually(async () => {
      const current = (await client.v2.core.eventDestinations.retrieve(created.body.id)) as unknown as Record<string, any>;
      return current.status === 'disabled' ? current : undefined;
    });
    expect(disabled.status_details).toEqual({ disabled: { reason: 'no_cloudtwo_partner_topic_exists' } });
    expect(disabled.cloudtwo_event_grid.cloudtwo_partner_topic_status).toBe('deleted');

    // And once the topic exists again and a delivery gets through, it is activated again
    await fetch(`${stack.eventGridEndpoint}/partner-topics/${topic}`, { method: 'PUT' });
    await client.v2.core.eventDestinations.enable(created.body.id);
    await client.v2.core.eventDestinations.ping(created.body.id);
    const reactivated = await eventually(async () => {
      const current = (await client.v2.core.eventDestinations.retrieve(created.body.id)) as unknown as Record<string, any>;
      return current.cloudtwo_event_grid.cloudtwo_partner_topic_status === 'activated' ? current : undefined;
    });
    expect(reactivated).toMatchObject({ status: 'enabled', status_details: null });
  });
});
