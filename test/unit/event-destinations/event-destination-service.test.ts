import { describe, expect, it } from 'vitest';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import type { EventDestination } from '#shared/event-destinations/event-destination.ts';
import { createEventDestinationParams, updateEventDestinationParams } from '#shared/event-destinations/schemas.ts';
import { eventDestinationService } from '#shared/event-destinations/service.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../../support/fakes.ts';
import { memorySecretBox } from '../../support/secret-box.ts';

const scope: Scope = { accountId: 'acct_destinations', livemode: false };
const other: Scope = { accountId: 'acct_other', livemode: false };

function setup(maxDestinations = 16) {
  const repository = memoryOwnedStore<EventDestination>();
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const service = eventDestinationService({
    repository,
    authorizations: { list: async () => [], put: async () => undefined },
    events: recorded.events,
    maxDestinations,
    eventSourcePrefix: 'aws.partner/service.test',
    egress: { allowPrivateInTestMode: true },
    secrets: memorySecretBox(),
    clock: () => now++,
  });
  return { service, repository, written: recorded.written };
}

const webhook = (overrides: Record<string, unknown> = {}) =>
  createEventDestinationParams.parse({
    name: 'hooks',
    type: 'webhook_endpoint',
    event_payload: 'thin',
    enabled_events: ['v2.core.event_destination.ping', 'v2.core.event_destination.ping'],
    webhook_endpoint: { url: 'http://127.0.0.1:9/hook' },
    ...overrides,
  });

describe('event destinations (service with the shared fakes)', () => {
  it('creates a webhook destination with its own signing secret, enabled, its event types once each', async () => {
    const { service } = setup();
    const destination = await service.create(originOf(scope), webhook());
    expect(destination).toMatchObject({ status: 'enabled', enabledEvents: ['v2.core.event_destination.ping'], snapshotApiVersion: null, version: 1 });
    expect(destination.webhookEndpoint!.signingSecret).toMatch(/^whsec_/);
  });

  it('refuses a snapshot type on a thin destination, a missing configuration, and one over the cap', async () => {
    const { service } = setup(1);
    await expect(service.create(originOf(scope), webhook({ enabled_events: ['customer.created'] }))).rejects.toMatchObject({
      code: 'invalid_enabled_events',
      param: 'enabled_events.0',
    });
    await expect(service.create(originOf(scope), webhook({ webhook_endpoint: undefined }))).rejects.toMatchObject({ param: 'webhook_endpoint' });
    await service.create(originOf(scope), webhook());
    await expect(service.create(originOf(scope), webhook())).rejects.toMatchObject({ code: 'event_destination_limit_reached' });
  });

  it('updates, disables and enables with a new version each time, and never reaches another owner’s', async () => {
    const { service } = setup();
    const created = await service.create(originOf(scope), webhook());
    const renamed = await service.update(originOf(scope), created.id, updateEventDestinationParams.parse({ name: 'renamed', metadata: { a: '1' } }));
    const disabled = await service.disable(originOf(scope), created.id);
    expect(renamed).toMatchObject({ name: 'renamed', metadata: { a: '1' }, version: 2 });
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'user', version: 3 });
    expect(await service.enable(originOf(scope), created.id)).toMatchObject({ status: 'enabled', disabledReason: null, version: 4 });
    await expect(service.retrieve(other, created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.update(originOf(other), created.id, updateEventDestinationParams.parse({ name: 'x' }))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('pings one destination only: a thin event delivered to it, with no fan-out', async () => {
    const { service, written } = setup();
    const destination = await service.create(originOf(scope), webhook());
    const ping = await service.ping(originOf(scope), destination.id);
    const outbox = written.at(-1)!;
    expect(ping).toMatchObject({ type: 'v2.core.event_destination.ping', relatedObject: { id: destination.id } });
    expect(outbox.fanOut).toBeNull();
    expect(outbox.deliveries).toHaveLength(1);
    expect(outbox.deliveries[0]).toMatchObject({ explicit: true, destination: { kind: 'event_destination', id: destination.id, version: 1 } });
    await expect(service.ping(originOf(other), destination.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a webhook_endpoint change on a cloudone destination', async () => {
    const { service } = setup();
    const cloud = await service.create(
      originOf(scope),
      createEventDestinationParams.parse({
        name: 'bus',
        type: 'cloudone_eventbridge',
        event_payload: 'thin',
        enabled_events: ['v2.core.event_destination.ping'],
        cloudone_eventbridge: { cloudone_account_id: '123456789012', cloudone_region: 'us-east-1' },
      }),
    );
    expect(cloud.cloudoneEventbridge).toMatchObject({
      eventSourceStatus: 'pending',
      eventSourceName: `aws.partner/service.test/${scope.accountId}/${cloud.id}`,
    });
    await expect(
      service.update(originOf(scope), cloud.id, updateEventDestinationParams.parse({ webhook_endpoint: { url: 'http://127.0.0.1:9/x' } })),
    ).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
