import { describe, expect, it } from 'vitest';
import { deliveryAttemptsService } from '#shared/delivery/attempts-service.ts';
import type { EventDestination } from '#shared/event-destinations/event-destination.ts';
import { maxDeliveriesPerEvent, type Delivery, type SnapshotEvent, type ThinEvent } from '#shared/events/event.ts';
import type { DeliveriesQueueMessage, DeliveryMessage } from '#shared/events/ports.ts';
import type { WebhookEndpoint } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import { memoryDeliveries, memoryOwnedStore } from '../../support/fakes.ts';

const platform = { accountId: 'acct_p', livemode: false };
const stranger = { accountId: 'acct_s', livemode: false };
const now = 1_800_000_000_000;

const thinEvent: ThinEvent = {
  id: 'evt_thin',
  scope: platform,
  platformId: 'acct_p',
  type: 'v1.customer.created',
  created: now - 60_000,
  relatedObject: null,
  changes: null,
  data: null,
  reason: null,
  snapshotEventId: null,
};
const snapshotEvent: SnapshotEvent = {
  id: 'evt_snap',
  scope: platform,
  platformId: 'acct_p',
  type: 'customer.created',
  created: now - 60_000,
  apiVersion: '2026-10-28.endive',
  object: { id: 'cus_1' },
  previousAttributes: null,
  request: null,
  pendingWebhooks: 0,
  failedWebhooks: 1,
};
const destination: EventDestination = {
  id: 'ed_1',
  scope: platform,
  created: now - 120_000,
  updated: now - 120_000,
  name: 'd',
  description: '',
  type: 'webhook_endpoint',
  eventPayload: 'thin',
  enabledEvents: ['v1.customer.created'],
  eventsFrom: null,
  snapshotApiVersion: null,
  metadata: null,
  status: 'disabled',
  disabledReason: 'user',
  webhookEndpoint: { url: 'http://127.0.0.1:9/h', signingSecret: 'whsec_x' },
  cloudoneEventbridge: null,
  cloudtwoEventGrid: null,
  version: 4,
};
const endpoint: WebhookEndpoint = {
  id: 'we_1',
  scope: platform,
  created: now - 120_000,
  url: 'http://127.0.0.1:9/v1',
  enabledEvents: ['customer.created'],
  description: null,
  metadata: {},
  apiVersion: null,
  application: null,
  connect: false,
  status: 'enabled',
  secret: 'whsec_y',
  version: 2,
};

const delivery = (id: string, overrides: Partial<Delivery> = {}): Delivery => ({
  id,
  event: { kind: 'thin', scope: platform, id: 'evt_thin' },
  eventType: 'v1.customer.created',
  destination: { kind: 'event_destination', scope: platform, id: 'ed_1', version: 4 },
  explicit: false,
  status: 'failed',
  attempts: [{ at: now - 50_000, outcome: 'failed', status: 500, durationMs: 12, error: 'HTTP 500', responseExcerpt: 'not now' }],
  nextAttemptAt: null,
  created: now - 59_000,
  ...overrides,
});

function harness() {
  const memory = memoryDeliveries();
  const destinations = memoryOwnedStore(destination);
  const endpoints = memoryOwnedStore(endpoint);
  const enqueued: DeliveriesQueueMessage[] = [];
  const service = deliveryAttemptsService({
    deliveries: memory.store,
    events: memory.events,
    destinations: destinations.get,
    endpoints: endpoints.get,
    queue: { enqueue: async (messages) => void enqueued.push(...messages) },
    clock: () => now,
  });
  return { service, memory, enqueued };
}

describe('the deliveries of an event', () => {
  it('lists every delivery linked to the event, newest first, with its attempts', async () => {
    // Given a thin event delivered to one destination, once by the fan-out and once again by hand
    const { service, memory } = harness();
    memory.add(thinEvent, delivery('dlv_a'), delivery('dlv_b', { created: now - 1_000, status: 'delivered', resend: true, explicit: true }));

    // When its deliveries are listed
    const listed = await service.listForEvent(platform, 'evt_thin');

    // Then both come back, the resend first, with the failed attempt's status and excerpt
    expect(listed.map((found) => found.id)).toEqual(['dlv_b', 'dlv_a']);
    expect(listed[1]!.attempts[0]).toMatchObject({ status: 500, responseExcerpt: 'not now' });
  });

  it('finds snapshot events as well as thin ones, and answers 404 for another platform’s event', async () => {
    const { service, memory } = harness();
    memory.add(snapshotEvent, delivery('dlv_s', { event: { kind: 'snapshot', scope: platform, id: 'evt_snap' } }));
    expect((await service.listForEvent(platform, 'evt_snap')).map((found) => found.id)).toEqual(['dlv_s']);
    await expect(service.listForEvent(stranger, 'evt_snap')).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(service.listForEvent(platform, 'evt_none')).rejects.toMatchObject({ code: 'resource_missing' });
  });
});

describe('the deliveries of a destination or v1 endpoint', () => {
  it('lists by status, pending first, and pages through with the position it hands out', async () => {
    // Given a destination with a pending, two failed and a delivered delivery
    const { service, memory } = harness();
    memory.add(
      thinEvent,
      delivery('dlv_1', { status: 'delivered', created: now - 4_000 }),
      delivery('dlv_2', { status: 'failed', created: now - 3_000 }),
      delivery('dlv_3', { status: 'failed', created: now - 2_000 }),
      delivery('dlv_4', { status: 'pending', created: now - 1_000, nextAttemptAt: now + 60_000 }),
    );
    const target = { kind: 'event_destination' as const, id: 'ed_1' };

    // When the failed ones are listed a page of one at a time
    const first = await service.listForTarget(platform, target, { status: 'failed', limit: 1 });
    const second = await service.listForTarget(platform, target, { status: 'failed', limit: 1, after: first.next });

    // Then they come newest first, and only they
    expect([first.items[0]!.id, first.hasMore, second.items[0]!.id, second.hasMore]).toEqual(['dlv_3', true, 'dlv_2', false]);
    // And without a filter, pending comes first, then failed, then delivered
    const all = await service.listForTarget(platform, target, { limit: 10 });
    expect(all.items.map((found) => found.id)).toEqual(['dlv_4', 'dlv_3', 'dlv_2', 'dlv_1']);
  });

  it('answers 404 for a destination or endpoint that is not the caller’s, even one with deliveries', async () => {
    const { service, memory } = harness();
    memory.add(thinEvent, delivery('dlv_1'));
    await expect(service.listForTarget(stranger, { kind: 'event_destination', id: 'ed_1' }, { limit: 10 })).rejects.toMatchObject({
      code: 'resource_missing',
      message: "No such event destination: 'ed_1'",
    });
    await expect(service.listForTarget(stranger, { kind: 'webhook_endpoint', id: 'we_1' }, { limit: 10 })).rejects.toMatchObject({
      message: "No such webhook endpoint: 'we_1'",
    });
  });
});

describe('resending an event', () => {
  it('writes a new explicit delivery of one attempt, linked to the event, and queues it for the worker', async () => {
    // Given a thin event whose delivery to a (now disabled) destination gave up
    const { service, memory, enqueued } = harness();
    memory.add(thinEvent, delivery('dlv_old'));

    // When it is resent to that destination
    const { delivery: resent } = await service.resend({ scope: platform, platformId: 'acct_p' }, 'evt_thin', { kind: 'event_destination', id: 'ed_1' });

    // Then a new pending delivery exists, due now, explicit (sent whatever the status), marked as a resend
    expect(resent).toMatchObject({
      status: 'pending',
      explicit: true,
      resend: true,
      nextAttemptAt: now,
      eventType: 'v1.customer.created',
      destination: { kind: 'event_destination', id: 'ed_1', version: 4 },
    });
    expect(resent.id).not.toBe('dlv_old');
    expect(memory.thin.get('acct_p|false|evt_thin')!.deliveryIds).toEqual(['dlv_old', resent.id]);
    // And it goes on the deliveries queue with the thin event, like every delivery
    expect(enqueued).toEqual([expect.objectContaining({ deliveryId: resent.id, thinEvent: expect.objectContaining({ id: 'evt_thin' }) })]);
    expect((enqueued[0] as DeliveryMessage).thinEvent!.deliveryIds).toBeUndefined();
  });

  it('resends a snapshot event to a v1 endpoint, counting it in pending_webhooks', async () => {
    const { service, memory } = harness();
    memory.add(snapshotEvent);
    await service.resend({ scope: platform, platformId: 'acct_p' }, 'evt_snap', { kind: 'webhook_endpoint', id: 'we_1' });
    expect(memory.snapshot.get('acct_p|false|evt_snap')).toMatchObject({ pendingWebhooks: 1, deliveryIds: [expect.stringMatching(/^dlv_/)] });
  });

  it('refuses a payload the target does not take, another platform’s event or target, and an event at its delivery limit', async () => {
    const { service, memory, enqueued } = harness();
    memory.add(thinEvent);
    memory.add(snapshotEvent);
    const caller = { scope: platform, platformId: 'acct_p' };
    await expect(service.resend(caller, 'evt_thin', { kind: 'webhook_endpoint', id: 'we_1' })).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'webhook_endpoint',
    });
    await expect(service.resend(caller, 'evt_snap', { kind: 'event_destination', id: 'ed_1' })).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'event_destination',
    });
    await expect(service.resend({ scope: stranger, platformId: 'acct_s' }, 'evt_thin', { kind: 'event_destination', id: 'ed_1' })).rejects.toMatchObject({
      code: 'resource_missing',
    });
    memory.add({ ...thinEvent, id: 'evt_other', scope: stranger, platformId: 'acct_s' });
    await expect(service.resend({ scope: stranger, platformId: 'acct_s' }, 'evt_other', { kind: 'event_destination', id: 'ed_1' })).rejects.toMatchObject({
      message: "No such event destination: 'ed_1'",
    });
    memory.add({ ...thinEvent, id: 'evt_full', deliveryIds: Array.from({ length: maxDeliveriesPerEvent }, (_, i) => `dlv_${i}`) });
    await expect(service.resend(caller, 'evt_full', { kind: 'event_destination', id: 'ed_1' })).rejects.toMatchObject({ code: 'event_delivery_limit_reached' });
    expect(enqueued).toEqual([]);
  });
});
