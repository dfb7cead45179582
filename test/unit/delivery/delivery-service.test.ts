import { describe, expect, it } from 'vitest';
import type { DeliveryAttempt } from '#shared/delivery/attempt.ts';
import { deliveryService } from '#shared/delivery/delivery-service.ts';
import { maxSweepsWithoutAttempt } from '#shared/events/parking.ts';
import type { DeliveryStore, DeliveryUpdate } from '#shared/delivery/delivery-store.ts';
import type { EventDestination } from '#shared/event-destinations/event-destination.ts';
import type { Delivery, DestinationRef, ThinEvent } from '#shared/events/event.ts';
import { memorySecretBox } from '../../support/secret-box.ts';
import { deliveryMessage, type DeliveriesQueueMessage, type DeliveryMessage } from '#shared/events/ports.ts';

const scope = { accountId: 'acct_1', livemode: false };
const now = 1_800_000_000_000;

const event: ThinEvent = {
  id: 'evt_1',
  scope,
  platformId: 'acct_1',
  type: 'v2.core.event_destination.ping',
  created: now,
  relatedObject: null,
  changes: null,
  data: {},
  reason: null,
  snapshotEventId: null,
};

const destination = (overrides: Partial<EventDestination> = {}): EventDestination => ({
  id: 'ed_1',
  scope,
  created: now,
  updated: now,
  name: 'd',
  description: '',
  type: 'webhook_endpoint',
  eventPayload: 'thin',
  enabledEvents: ['v2.core.event_destination.ping'],
  eventsFrom: null,
  snapshotApiVersion: null,
  metadata: null,
  status: 'enabled',
  disabledReason: null,
  webhookEndpoint: { url: 'http://127.0.0.1:9/h', signingSecret: 'whsec_x' },
  cloudoneEventbridge: null,
  cloudtwoEventGrid: null,
  version: 1,
  ...overrides,
});

const pending = (attempts = 0, nextAttemptAt = now): Delivery => ({
  id: 'dlv_1',
  event: { kind: 'thin', scope, id: 'evt_1' },
  destination: { kind: 'event_destination', scope, id: 'ed_1' },
  explicit: false,
  status: 'pending',
  nextAttemptAt,
  created: now,
  attempts: Array.from({ length: attempts }, () => ({ at: now, outcome: 'failed' as const, status: 500, durationMs: 1, error: 'HTTP 500' })),
});

const message: DeliveryMessage = {
  deliveryId: 'dlv_1',
  event: { kind: 'thin', scope, id: 'evt_1' },
  destination: { kind: 'event_destination', scope, id: 'ed_1' },
};
const answer = (outcome: 'delivered' | 'failed', missingTarget = false): DeliveryAttempt => ({
  outcome,
  status: outcome === 'delivered' ? 200 : 500,
  durationMs: 3,
  error: outcome === 'failed' ? 'HTTP 500' : null,
  missingTarget,
});

function harness(options: {
  delivery?: Delivery;
  overdue?: Delivery[];
  destination?: EventDestination | undefined;
  attempt?: DeliveryAttempt;
  random?: number;
}) {
  const updates: DeliveryUpdate[] = [];
  const enqueued: Array<{ count: number; delay?: number; messages: DeliveriesQueueMessage[] }> = [];
  const replaced: EventDestination[] = [];
  let stored = 'destination' in options ? options.destination : destination();
  const sent: string[] = [];
  const reads: string[] = [];
  const destinationReads: DestinationRef[] = [];
  const deliveries: DeliveryStore = {
    get: async () => {
      reads.push('delivery');
      return options.delivery ?? pending();
    },
    update: async (_delivery, update) => {
      updates.push(update);
      return true;
    },
    overdue: async (dueBy) => (options.overdue ?? [pending(0, now - 65_000)]).filter((delivery) => delivery.nextAttemptAt! <= dueBy),
    reschedule: async () => true,
    getMany: async () => [],
    listByDestination: async () => ({ items: [], hasMore: false, next: undefined }),
    createResend: async () => 'created',
  };
  const service = deliveryService({
    secrets: memorySecretBox(),
    deliveries,
    events: {
      getThin: async () => {
        reads.push('event');
        return event;
      },
      getSnapshot: async () => undefined,
      listThin: async () => ({ items: [], hasMore: false }),
      listSnapshot: async () => ({ items: [], hasMore: false }),
    },
    destinations: {
      get: async () => stored,
      replace: async (next: EventDestination) => {
        replaced.push(next);
        stored = next;
        return true;
      },
    } as never,
    targets: async (ref) => {
      destinationReads.push(ref);
      return ref.kind === 'event_destination' ? stored : undefined;
    },
    queue: { enqueue: async (messages, delay) => void enqueued.push({ count: messages.length, delay, messages }) },
    webhooks: {
      send: async ({ body }) => {
        sent.push(body);
        return options.attempt ?? answer('delivered');
      },
    },
    eventBridge: { put: async () => options.attempt ?? answer('delivered') },
    eventGrid: { send: async () => options.attempt ?? answer('delivered') },
    retrySchedule: { test: [60, 1800, 7200], live: [60] },
    sweepGraceMillis: 60_000,
    clock: () => now,
    random: () => options.random ?? 0.5,
  });
  return { service, updates, enqueued, replaced, sent, reads, destinationReads };
}

describe('delivering one event', () => {
  it('asks for the target the message names, with the version the fan-out saw (no older copy will do)', async () => {
    const { service, destinationReads } = harness({});
    await service.deliver({ ...message, destination: { ...message.destination, version: 3 } });
    expect(destinationReads).toEqual([{ ...message.destination, version: 3 }]);
  });

  it('sends the thin notification and marks the delivery delivered', async () => {
    const { service, updates, sent } = harness({});
    await service.deliver(message);
    expect(JSON.parse(sent[0]!)).toMatchObject({ id: 'evt_1', object: 'v2.core.event', type: 'v2.core.event_destination.ping' });
    expect(updates[0]).toMatchObject({ status: 'delivered', nextAttemptAt: null, attempt: { outcome: 'delivered', status: 200 } });
  });

  it('schedules a retry with jitter and puts it back on the queue with a delay', async () => {
    const { service, updates, enqueued } = harness({ attempt: answer('failed'), random: 1 });
    await service.deliver(message);
    expect(updates[0]).toMatchObject({ status: 'pending', nextAttemptAt: now + 72_000 });
    expect(enqueued).toHaveLength(1);
    expect(enqueued[0]!.delay).toBeCloseTo(72);
  });

  it('reads neither the delivery nor a thin event that travel with the message, and carries the new attempt into the retry', async () => {
    // Given a message carrying its delivery record and its thin event
    const { service, reads, sent, enqueued } = harness({ attempt: answer('failed') });
    const carried = deliveryMessage(pending(), event);

    // When it is delivered and fails
    await service.deliver(carried);

    // Then only the destination was read, the event was sent, and the retry message carries one attempt
    expect(reads).toEqual([]);
    expect(JSON.parse(sent[0]!)).toMatchObject({ id: 'evt_1' });
    expect(enqueued[0]!.messages[0]).toMatchObject({ thinEvent: { id: 'evt_1' }, delivery: { attempts: [{ outcome: 'failed', status: 500 }] } });
  });

  it('treats a carried thin event past its retention as expired', async () => {
    const { service, sent, updates } = harness({});
    await service.deliver(deliveryMessage(pending(), { ...event, created: now - 31 * 24 * 60 * 60 * 1000 }));
    expect(sent).toEqual([]);
    expect(updates[0]).toMatchObject({ status: 'cancelled' });
  });

  it('leaves waits longer than the queue can delay to the sweeper', async () => {
    const { service, updates, enqueued } = harness({ attempt: answer('failed'), delivery: pending(1) });
    await service.deliver(message);
    expect(updates[0]).toMatchObject({ status: 'pending', nextAttemptAt: now + 1_800_000 });
    expect(enqueued).toEqual([]);
  });

  it('gives up after the last retry', async () => {
    const { service, updates } = harness({ attempt: answer('failed'), delivery: pending(3) });
    await service.deliver(message);
    expect(updates[0]).toMatchObject({ status: 'failed', nextAttemptAt: null, settleSnapshotEvent: { failed: true } });
  });

  it('cancels deliveries to deleted or disabled destinations without sending, and says why', async () => {
    for (const [found, reason] of [
      [undefined, 'destination_deleted'],
      [destination({ status: 'disabled', disabledReason: 'user' }), 'destination_disabled'],
    ] as const) {
      const { service, updates, sent } = harness({ destination: found });
      await service.deliver(message);
      expect(sent).toEqual([]);
      expect(updates[0]).toMatchObject({ status: 'cancelled', attempt: null, cancelReason: reason });
    }
  });

  it('sends a resend even to a disabled destination, and does not retry it when it fails', async () => {
    const resend = { ...pending(), explicit: true, resend: true };
    const { service, updates, sent, enqueued } = harness({
      destination: destination({ status: 'disabled', disabledReason: 'user' }),
      attempt: answer('failed'),
      delivery: resend,
    });
    await service.deliver(message);
    expect(sent).toHaveLength(1);
    expect(updates[0]).toMatchObject({ status: 'failed', nextAttemptAt: null, attempt: { outcome: 'failed', status: 500 } });
    expect(enqueued).toEqual([]);
  });

  it('keeps the start of the response body with the attempt (an empty one as none)', async () => {
    const said = harness({ attempt: { ...answer('failed'), responseExcerpt: 'database is down' } });
    await said.service.deliver(message);
    expect(said.updates[0]!.attempt).toMatchObject({ status: 500, responseExcerpt: 'database is down' });
    const silent = harness({ attempt: { ...answer('delivered'), responseExcerpt: '' } });
    await silent.service.deliver(message);
    expect(silent.updates[0]!.attempt).toMatchObject({ status: 200, responseExcerpt: null });
  });

  it('ignores a duplicate message for a finished delivery, and re-queues one that came early', async () => {
    const done = harness({ delivery: { ...pending(), status: 'delivered' } });
    await done.service.deliver(message);
    expect(done.sent).toEqual([]);
    const early = harness({ delivery: pending(0, now + 30_000) });
    await early.service.deliver(message);
    expect(early.sent).toEqual([]);
    expect(early.enqueued).toMatchObject([{ count: 1, delay: 30 }]);
  });

  it('activates a pending cloudone source on success and disables the destination when the source is gone', async () => {
    const cloudone = { accountId: '123456789012', region: 'us-east-1', eventSourceName: 's', eventSourceArn: 'arn', eventSourceStatus: 'pending' as const };
    const ok = harness({ destination: destination({ type: 'cloudone_eventbridge', webhookEndpoint: null, cloudoneEventbridge: cloudone }) });
    await ok.service.deliver(message);
    expect(ok.replaced[0]!.cloudoneEventbridge!.eventSourceStatus).toBe('active');

    const gone = harness({
      attempt: answer('failed', true),
      destination: destination({ type: 'cloudone_eventbridge', webhookEndpoint: null, cloudoneEventbridge: cloudone }),
    });
    await gone.service.deliver(message);
    expect(gone.replaced[0]).toMatchObject({
      status: 'disabled',
      disabledReason: 'no_cloudone_event_source_exists',
      cloudoneEventbridge: { eventSourceStatus: 'deleted' },
    });
    expect(gone.updates[0]).toMatchObject({ status: 'failed' });
  });

  it('brings a deleted source or topic back once a delivery gets through, and writes nothing for one already active', async () => {
    const cloudone = { accountId: '123456789012', region: 'us-east-1', eventSourceName: 's', eventSourceArn: 'arn', eventSourceStatus: 'deleted' as const };
    const source = harness({ destination: destination({ type: 'cloudone_eventbridge', webhookEndpoint: null, cloudoneEventbridge: cloudone }) });
    await source.service.deliver(message);
    expect(source.replaced[0]!.cloudoneEventbridge!.eventSourceStatus).toBe('active');

    const cloudtwo = { region: 'westeurope', resourceGroupName: 'rg', subscriptionId: 'sub', partnerTopicName: 't', partnerTopicStatus: 'deleted' as const };
    const topic = harness({ destination: destination({ type: 'cloudtwo_event_grid', webhookEndpoint: null, cloudtwoEventGrid: cloudtwo }) });
    await topic.service.deliver(message);
    expect(topic.replaced[0]!.cloudtwoEventGrid!.partnerTopicStatus).toBe('activated');

    const active = harness({
      destination: destination({ type: 'cloudone_eventbridge', webhookEndpoint: null, cloudoneEventbridge: { ...cloudone, eventSourceStatus: 'active' } }),
    });
    await active.service.deliver(message);
    expect(active.replaced).toEqual([]);
  });
});

describe('sweeping', () => {
  it('claims overdue deliveries by rescheduling them and enqueues what it claimed', async () => {
    const { service, enqueued } = harness({});
    expect(await service.sweep()).toBe(1);
    expect(enqueued).toMatchObject([{ count: 1, delay: undefined }]);
  });

  it('parks a delivery the worker keeps failing on: failed with the reason, its event settled, not queued again', async () => {
    // Given an overdue delivery swept ten times with no attempt recorded in between (a poison message)
    const poisoned = { ...pending(1, now - 65_000), sweeps: maxSweepsWithoutAttempt };
    const { service, enqueued, updates } = harness({ overdue: [poisoned] });

    // When the sweeper runs
    const requeued = await service.sweep();

    // Then nothing is queued; the delivery fails with the reason as its last attempt and counts as given up
    expect(requeued).toBe(0);
    expect(enqueued).toEqual([{ count: 0, delay: undefined, messages: [] }]);
    expect(updates).toEqual([
      {
        status: 'failed',
        nextAttemptAt: null,
        attempt: { at: now, outcome: 'failed', status: null, durationMs: 0, error: expect.stringContaining('parked after 10 sweeps') },
        settleSnapshotEvent: { failed: true },
      },
    ]);
  });

  it('leaves a retry due within the grace to the queue message on its way, but sweeps a longer backoff than SQS delays once due', async () => {
    const failedAt = (at: number) => [{ at, outcome: 'failed' as const, status: 500, durationMs: 1, error: 'HTTP 500' }];
    // Given a retry 60 s after its attempt (a delayed message carries it), due 5 s ago
    const queued = { ...pending(0, now - 5000), id: 'dlv_queued', attempts: failedAt(now - 65_000) };
    // And a retry 30 minutes after its attempt (no message: SQS delays 15 minutes at most), due 1 s ago
    const unqueued = { ...pending(0, now - 1000), id: 'dlv_unqueued', attempts: failedAt(now - 1_801_000) };
    // And the same after one sweep already queued it
    const swept = { ...unqueued, id: 'dlv_swept', sweeps: 1 };
    const { service, enqueued } = harness({ overdue: [queued, unqueued, swept] });

    // When the sweeper runs
    expect(await service.sweep()).toBe(1);

    // Then only the long backoff is queued, at once
    expect(enqueued[0]!.messages.map((queuedMessage) => (queuedMessage as DeliveryMessage).deliveryId)).toEqual(['dlv_unqueued']);
  });

  it('re-queues a delivery swept fewer times than the bound', async () => {
    const { service, updates } = harness({ overdue: [{ ...pending(0, now - 65_000), sweeps: maxSweepsWithoutAttempt - 1 }] });
    expect(await service.sweep()).toBe(1);
    expect(updates).toEqual([]);
  });
});
