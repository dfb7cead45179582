import { describe, expect, it } from 'vitest';
import { dynamoDeliveryStore } from '#shared/data/delivery-store.ts';
import { dynamoEventRepository } from '#shared/data/event-repository.ts';
import { dynamoOutboxStore } from '#shared/data/event-outbox.ts';
import { resendDelivery } from '#shared/events/emitter.ts';
import { emptyOutbox, maxDeliveriesPerEvent, type Delivery, type SnapshotEvent, type ThinEvent } from '#shared/events/event.ts';
import { newId } from '#shared/core/ids.ts';
import { stackTable } from '../support/stack.ts';

/** A platform scope of its own per test, so lists start empty. */
const freshScope = () => ({ accountId: newId('acct', Date.now()), livemode: false });

function thinEvent(scope: { accountId: string; livemode: boolean }, now: number): ThinEvent {
  return {
    id: newId('evt', now),
    scope,
    platformId: scope.accountId,
    type: 'v2.core.event_destination.ping',
    created: now,
    relatedObject: null,
    changes: null,
    data: {},
    reason: null,
    snapshotEventId: null,
  };
}

describe('delivery lists and resends against DynamoDB Local (47–49)', () => {
  it('lists a destination’s deliveries by status in one query a page, following each delivery as its status changes', async () => {
    // Given an event with three deliveries to one destination
    const table = stackTable();
    const store = dynamoDeliveryStore(table);
    const scope = freshScope();
    const now = Date.now();
    const event = thinEvent(scope, now);
    const outbox = emptyOutbox();
    outbox.thinEvents.push(event);
    // Due in an hour: the stack's sweeper (2 s grace) must not send them meanwhile
    const deliveries = [0, 1, 2].map((i) => ({
      ...resendDelivery('thin', event, { kind: 'event_destination', scope, id: 'ed_list' }, now + i),
      id: newId('dlv', now + i),
      nextAttemptAt: now + 3_600_000,
    }));
    await dynamoOutboxStore(table).commit(outbox);
    for (const delivery of deliveries) expect(await store.createResend(delivery)).toBe('created');

    // When one is delivered and one gives up
    const attempt = { at: now, outcome: 'failed' as const, status: 500, durationMs: 1, error: 'HTTP 500', responseExcerpt: 'oops' };
    await store.update(deliveries[0]!, {
      status: 'delivered',
      nextAttemptAt: null,
      attempt: { ...attempt, outcome: 'delivered', status: 200 },
      settleSnapshotEvent: null,
    });
    await store.update(deliveries[1]!, { status: 'failed', nextAttemptAt: null, attempt, settleSnapshotEvent: null });

    // Then the list has the pending one first, then the failed, then the delivered; a status is its own range
    const destination = { scope, id: 'ed_list' };
    const ids = (page: { items: Delivery[] }) => page.items.map((delivery) => delivery.id);
    expect(ids(await store.listByDestination(destination, { limit: 10 }))).toEqual([deliveries[2]!.id, deliveries[1]!.id, deliveries[0]!.id]);
    expect(ids(await store.listByDestination(destination, { status: 'failed', limit: 10 }))).toEqual([deliveries[1]!.id]);
    const first = await store.listByDestination(destination, { limit: 2 });
    const second = await store.listByDestination(destination, { limit: 2, after: first.next });
    expect([ids(first), first.hasMore, ids(second), second.hasMore]).toEqual([[deliveries[2]!.id, deliveries[1]!.id], true, [deliveries[0]!.id], false]);
    expect((await store.listByDestination(destination, { status: 'failed', limit: 10 })).items[0]!.attempts).toEqual([attempt]);
    // And the event is linked to all three, read back in one call
    const linked = await dynamoEventRepository(table).getThin(scope, event.id, now);
    expect(new Set(linked!.deliveryIds)).toEqual(new Set(deliveries.map((delivery) => delivery.id)));
    expect((await store.getMany(linked!.deliveryIds!)).map((delivery) => delivery.id).sort()).toEqual(deliveries.map((delivery) => delivery.id).sort());
  });

  it('refuses a resend of an event that is gone, and one past the deliveries an event may have, writing nothing', async () => {
    const table = stackTable();
    const store = dynamoDeliveryStore(table);
    const scope = freshScope();
    const now = Date.now();
    const missing = { ...resendDelivery('thin', thinEvent(scope, now), { kind: 'event_destination', scope, id: 'ed_x' }, now), nextAttemptAt: now + 3_600_000 };
    expect(await store.createResend(missing)).toBe('event_missing');
    expect(await store.get(missing.id)).toBeUndefined();

    // A snapshot event at the limit (its fan-out linked it to that many deliveries)
    const snapshot: SnapshotEvent = {
      id: newId('evt', now),
      scope,
      platformId: scope.accountId,
      type: 'customer.created',
      created: now,
      apiVersion: '2026-10-28.endive',
      object: { id: 'cus_1' },
      previousAttributes: null,
      request: null,
      pendingWebhooks: 0,
      failedWebhooks: 0,
      deliveryIds: Array.from({ length: maxDeliveriesPerEvent }, (_, i) => `dlv_${i}`),
    };
    const outbox = emptyOutbox();
    outbox.snapshotEvents.push(snapshot);
    await dynamoOutboxStore(table).commit(outbox);
    const late = resendDelivery('snapshot', snapshot, { kind: 'webhook_endpoint', scope, id: 'we_x' }, now);
    expect(await store.createResend(late)).toBe('too_many');
    expect(await store.get(late.id)).toBeUndefined();
    expect((await dynamoEventRepository(table).getSnapshot(scope, snapshot.id, now))!.pendingWebhooks).toBe(0);
  });
});
