import { describe, expect, it } from 'vitest';
import { deliveriesOf, eventEmitter, subscribes } from '#shared/events/emitter.ts';
import { idTime } from '#shared/core/ids.ts';
import type { Delivery, EventOrigin, FanOut, Subscriber } from '#shared/events/event.ts';
import { fanOutService } from '#shared/events/fan-out.ts';
import { isFanOutMessage, type DeliveriesQueueMessage } from '#shared/events/ports.ts';

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
  created: 1_700_000_000_000,
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

const now = 1_800_000_000_000;

function emitter() {
  const enqueued: DeliveriesQueueMessage[] = [];
  const events = eventEmitter({
    store: { commit: async () => undefined },
    queue: { enqueue: async (messages) => void enqueued.push(...messages) },
    clock: () => now,
  });
  return { events, enqueued };
}

/** The fan-out service on an in-memory record store: what it wrote, and what it enqueued. */
function fanOuts(records: FanOut[]) {
  const completed: Array<{ deliveries: Delivery[]; pendingWebhooks: Map<string, number> }> = [];
  const enqueued: DeliveriesQueueMessage[] = [];
  const service = fanOutService({
    subscribers: { subscribersOf: async () => audience },
    store: {
      complete: async (fanOut, deliveries, pendingWebhooks) => {
        const index = records.findIndex((record) => record.id === fanOut.id);
        if (index < 0) return undefined;
        records.splice(index, 1);
        completed.push({ deliveries, pendingWebhooks });
        return deliveries;
      },
      overdue: async (dueBy) => records.filter((record) => record.created <= dueBy),
      reschedule: async () => true,
      park: async () => undefined,
    },
    queue: { enqueue: async (messages) => void enqueued.push(...messages) },
    sweepGraceMillis: 60_000,
    maxSweeps: 10,
    clock: () => now + 120_000,
  });
  return { service, completed, enqueued };
}

const customerCreated = {
  kind: 'snapshot' as const,
  type: 'customer.created',
  object: { id: 'cus_1', object: 'customer' },
  relatedObject: { id: 'cus_1', type: 'customer', url: '/v1/customers/cus_1' },
};

describe('event fan-out', () => {
  it('writes a snapshot event, its thin mirror and their fan-out with the change, reading no subscribers', () => {
    const { events } = emitter();

    const outbox = events.prepare(origin(), [customerCreated]);

    expect(outbox.snapshotEvents).toHaveLength(1);
    expect(outbox.thinEvents[0]).toMatchObject({
      type: 'v1.customer.created',
      snapshotEventId: outbox.snapshotEvents[0]!.id,
      reason: { id: 'req_1', idempotencyKey: 'k' },
    });
    expect(outbox.deliveries).toEqual([]);
    expect(outbox.fanOut).toMatchObject({
      platform,
      source: '@self',
      events: [
        { ref: { kind: 'snapshot', id: outbox.snapshotEvents[0]!.id }, type: 'customer.created' },
        { ref: { kind: 'thin', id: outbox.thinEvents[0]!.id }, type: 'v1.customer.created' },
      ],
    });
  });

  it('sends a snapshot event and its thin mirror to every enabled subscriber of the type and source, and counts pending_webhooks', () => {
    const { events } = emitter();
    const outbox = events.prepare(origin(), [customerCreated]);

    const { deliveries, pendingWebhooks } = deliveriesOf(outbox.fanOut!, audience, now);

    expect(deliveries.map((delivery) => delivery.destination.id).sort()).toEqual(['snapshot', 'thin_self', 'v1_all']);
    expect(pendingWebhooks.get(outbox.snapshotEvents[0]!.id)).toBe(2);
    expect(deliveries.every((delivery) => delivery.status === 'pending' && delivery.attempts.length === 0 && delivery.nextAttemptAt === now)).toBe(true);
  });

  it('gives a fan-out run again the same delivery ids (one per event and subscriber), so a rerun finds what it wrote', () => {
    const { events } = emitter();
    const outbox = events.prepare(origin(), [customerCreated]);

    const first = deliveriesOf(outbox.fanOut!, audience, now).deliveries.map((delivery) => delivery.id);
    const again = deliveriesOf(outbox.fanOut!, audience, now + 60_000).deliveries.map((delivery) => delivery.id);
    const other = deliveriesOf(events.prepare(origin(), [customerCreated]).fanOut!, audience, now).deliveries.map((delivery) => delivery.id);

    expect(again).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
    expect(first.every((id) => /^dlv_1[0-9A-Za-z]{24}$/.test(id) && idTime(id) === outbox.fanOut!.created)).toBe(true);
    expect(other.filter((id) => first.includes(id))).toEqual([]);
  });

  it('leaves out subscribers the change came before: one created after it, and the one it created', () => {
    const { events } = emitter();
    const endpointCreated = {
      ...customerCreated,
      type: 'webhook_endpoint.created',
      relatedObject: { id: 'v1_all', type: 'webhook_endpoint', url: '/v1/webhook_endpoints/v1_all' },
    };
    const later = subscriber('later', { payload: 'snapshot', enabledEvents: ['*'], created: now + 1 });

    const outbox = events.prepare(origin(), [endpointCreated]);

    expect(deliveriesOf(outbox.fanOut!, [...audience, later], now).deliveries.map((delivery) => delivery.destination.id)).toEqual([]);
  });

  it('routes events from a connected account to @accounts subscribers, not @self ones', () => {
    const { events } = emitter();

    const outbox = events.prepare(origin(connected), [customerCreated]);

    expect(outbox.fanOut!.platform).toEqual(platform);
    expect(
      deliveriesOf(outbox.fanOut!, audience, now)
        .deliveries.map((delivery) => delivery.destination.id)
        .sort(),
    ).toEqual(['snapshot', 'thin_accounts']);
    expect(outbox.snapshotEvents[0]!.scope).toEqual(connected);
  });

  it('sends a ping only to its destination, with no fan-out, and dispatch enqueues what prepare built', async () => {
    const { events, enqueued } = emitter();
    const only = { kind: 'event_destination' as const, scope: platform, id: 'disabled' };

    const outbox = await events.publish(origin(), [{ kind: 'thin', type: 'v2.core.event_destination.ping', relatedObject: null, data: {}, only }]);

    expect(outbox.fanOut).toBeNull();
    expect(enqueued.map((message) => (isFanOutMessage(message) ? 'fan-out' : message.destination.id))).toEqual(['disabled']);
  });

  it('fans out once: the worker writes the deliveries with its record removed, and a redelivered message does nothing', async () => {
    const { events, enqueued: sent } = emitter();
    const outbox = events.prepare(origin(), [customerCreated]);
    await events.dispatch(outbox);
    const { service, completed, enqueued } = fanOuts([outbox.fanOut!]);

    const message = sent.find(isFanOutMessage)!;
    await service.run(message);
    await service.run(message);

    expect(completed).toHaveLength(1);
    expect(enqueued.map((delivery) => (isFanOutMessage(delivery) ? 'fan-out' : delivery.destination.id)).sort()).toEqual(['snapshot', 'thin_self', 'v1_all']);
    // The thin mirror travelled with the fan-out, and on into its delivery's message.
    expect(enqueued.find((delivery) => !isFanOutMessage(delivery) && delivery.destination.id === 'thin_self')).toMatchObject({
      thinEvent: { id: outbox.thinEvents[0]!.id },
    });
  });

  it('re-enqueues a fan-out whose message was lost, once it is overdue', async () => {
    const { events } = emitter();
    const outbox = events.prepare(origin(), [customerCreated]);
    const { service, enqueued } = fanOuts([outbox.fanOut!]);

    expect(await service.sweep()).toBe(1);

    expect(enqueued).toEqual([{ fanOut: { ...outbox.fanOut!, sweeps: 1 }, thinEvents: [] }]);
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
