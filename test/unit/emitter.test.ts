import { describe, expect, it } from 'vitest';
import { eventEmitter, subscribes } from '#shared/events/emitter.ts';
import type { EventOrigin, Subscriber } from '#shared/events/event.ts';

const platform = { accountId: 'acct_platform', livemode: false };
const connected = { accountId: 'acct_connected', livemode: false };
const origin = (scope = platform): EventOrigin => ({
  scope,
  platformId: platform.accountId,
  request: { id: 'req_1', idempotencyKey: 'k' },
  apiVersion: '2026-10-28.endive',
});

const subscriber = (id: string, overrides: Partial<Subscriber>): Subscriber => ({
  ref: { kind: 'event_destination', scope: platform, id },
  payload: 'thin',
  enabled: true,
  enabledEvents: [],
  eventsFrom: ['@self'],
  ...overrides,
});

const audience: Subscriber[] = [
  subscriber('thin_self', { enabledEvents: ['v1.customer.created'] }),
  subscriber('thin_accounts', { enabledEvents: ['v1.customer.created'], eventsFrom: ['@accounts'] }),
  subscriber('snapshot', { payload: 'snapshot', enabledEvents: ['customer.created'], eventsFrom: ['@self', '@accounts'] }),
  subscriber('v1_all', { ref: { kind: 'webhook_endpoint', scope: platform, id: 'v1_all' }, payload: 'snapshot', enabledEvents: ['*'] }),
  subscriber('disabled', { payload: 'snapshot', enabledEvents: ['*'], enabled: false }),
  subscriber('other_type', { payload: 'snapshot', enabledEvents: ['customer.deleted'] }),
];

function emitter() {
  const enqueued: string[] = [];
  const events = eventEmitter({
    subscribers: { subscribersOf: async () => audience },
    store: { commit: async () => undefined },
    queue: { enqueue: async (messages) => void enqueued.push(...messages.map((message) => message.destination.id)) },
    clock: () => 1_800_000_000_000,
  });
  return { events, enqueued };
}

const customerCreated = {
  kind: 'snapshot' as const,
  type: 'customer.created',
  object: { id: 'cus_1', object: 'customer' },
  relatedObject: { id: 'cus_1', type: 'customer', url: '/v1/customers/cus_1' },
};

describe('event fan-out', () => {
  it('sends a snapshot event and its thin mirror to every enabled subscriber of the type and source', async () => {
    const { events } = emitter();

    const outbox = await events.prepare(origin(), [customerCreated]);

    expect(outbox.snapshotEvents).toHaveLength(1);
    expect(outbox.thinEvents[0]).toMatchObject({
      type: 'v1.customer.created',
      snapshotEventId: outbox.snapshotEvents[0]!.id,
      reason: { id: 'req_1', idempotencyKey: 'k' },
    });
    expect(outbox.deliveries.map((delivery) => delivery.destination.id).sort()).toEqual(['snapshot', 'thin_self', 'v1_all']);
    expect(outbox.snapshotEvents[0]!.pendingWebhooks).toBe(2);
    expect(outbox.deliveries.every((delivery) => delivery.status === 'pending' && delivery.attempts.length === 0)).toBe(true);
  });

  it('routes events from a connected account to @accounts subscribers, not @self ones', async () => {
    const { events } = emitter();

    const outbox = await events.prepare(origin(connected), [customerCreated]);

    expect(outbox.deliveries.map((delivery) => delivery.destination.id).sort()).toEqual(['snapshot', 'thin_accounts']);
    expect(outbox.snapshotEvents[0]!.scope).toEqual(connected);
  });

  it('sends a ping only to its destination, and dispatch enqueues what prepare built', async () => {
    const { events, enqueued } = emitter();
    const only = { kind: 'event_destination' as const, scope: platform, id: 'disabled' };

    await events.publish(origin(), [{ kind: 'thin', type: 'v2.core.event_destination.ping', relatedObject: null, data: {}, only }]);

    expect(enqueued).toEqual(['disabled']);
  });

  it('matches types exactly, with * only for snapshot subscribers', () => {
    const thinAll = subscriber('x', { enabledEvents: ['*'] });
    expect(subscribes(thinAll, 'thin', 'v2.core.event_destination.ping', '@self')).toBe(false);
    expect(subscribes(subscriber('y', { payload: 'snapshot', enabledEvents: ['*'] }), 'snapshot', 'customer.created', '@self')).toBe(true);
    expect(
      subscribes(subscriber('z', { enabledEvents: ['v1.customer.created'], eventsFrom: ['@organization_members'] }), 'thin', 'v1.customer.created', '@self'),
    ).toBe(false);
  });
});
