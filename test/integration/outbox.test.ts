import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryEntity } from '#shared/data/delivery-store.ts';
import { dynamoFanOutStore, dynamoOutboxStore, fanOutEntity } from '#shared/data/event-outbox.ts';
import { outboxItems } from '#shared/data/outbox-items.ts';
import { deliveriesOf as fannedOut, eventEmitter } from '#shared/events/emitter.ts';
import type { Delivery, Subscriber } from '#shared/events/event.ts';
import { newPlatform, scanStackTable, sdk, stackTable } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { eventually, quiesce } from '../support/wait.ts';
import { dueItems } from '#shared/data/due-index.ts';
import { delivery as deliveryKeys } from '#shared/data/keys.ts';

describe('the delivery outbox', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  /** A platform with a thin destination for pings, and an emitter whose process "dies" right after writing an outbox. */
  async function crashAfterOutbox(name: string) {
    const platform = await newPlatform();
    const destination = await sdk(platform.secret_key).v2.core.eventDestinations.create({
      name,
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url: receiver.url },
    });
    const crashing = eventEmitter({
      store: dynamoOutboxStore(stackTable()),
      queue: {
        enqueue: async () => {
          throw new Error('worker killed before the enqueue');
        },
      },
    });
    return { platform, destination, crashing, scope: { accountId: platform.account, livemode: false } };
  }

  it('still delivers an event whose deliveries were written but never enqueued (a crash in between)', async () => {
    // Given a destination, and an emitter whose process "dies" right after writing the outbox
    const { platform, destination, crashing, scope } = await crashAfterOutbox('survivor');

    // When an event is emitted through it
    const outbox = await crashing.publish({ scope, platformId: platform.account, request: null, apiVersion: '2026-10-28.endive' }, [
      {
        kind: 'thin',
        type: 'v2.core.event_destination.ping',
        relatedObject: { id: destination.id, type: 'v2.core.event_destination', url: `/v2/core/event_destinations/${destination.id}` },
        data: {},
        only: { kind: 'event_destination', scope, id: destination.id },
      },
    ]);

    // Then the sweeper finds the overdue delivery and the receiver gets the event anyway, once
    const before = receiver.received.length;
    await eventually(async () => (receiver.received.some((request) => JSON.parse(request.body).id === outbox.thinEvents[0]!.id) ? true : undefined), 20_000);
    await quiesce({ queues: ['deliveries'] });
    expect(receiver.received.slice(before).filter((request) => JSON.parse(request.body).id === outbox.thinEvents[0]!.id)).toHaveLength(1);
  });

  it('still fans out an event whose fan-out was written but never enqueued (a crash in between), once', async () => {
    // Given a destination subscribed to a type, and an emitter whose process "dies" right after writing the outbox
    const { platform, destination, crashing, scope } = await crashAfterOutbox('fanned');

    // When an event of that type is emitted through it to whoever subscribes
    const outbox = await crashing.publish({ scope, platformId: platform.account, request: null, apiVersion: '2026-10-28.endive' }, [
      {
        kind: 'thin',
        type: 'v2.core.event_destination.ping',
        relatedObject: { id: destination.id, type: 'v2.core.event_destination', url: `/v2/core/event_destinations/${destination.id}` },
        data: {},
      },
    ]);
    expect(outbox.fanOut).not.toBeNull();

    // Then the sweeper finds the overdue fan-out, and the receiver gets the event anyway, once
    const id = outbox.thinEvents[0]!.id;
    const before = receiver.received.length;
    await eventually(async () => (receiver.received.some((request) => JSON.parse(request.body).id === id) ? true : undefined), 20_000);
    await quiesce({ queues: ['deliveries'] });
    expect(receiver.received.slice(before).filter((request) => JSON.parse(request.body).id === id)).toHaveLength(1);
  });

  it('fans out more deliveries than one transaction holds, and a rerun after a crash midway duplicates none', async () => {
    // Given a change of 8 events and 16 subscribers to each: 128 deliveries (due a day from now, so no
    // sweeper touches them), and one fan-out whose first 60 deliveries were written before its worker died
    const table = stackTable();
    const store = dynamoFanOutStore(table);
    const scope = { accountId: `acct_bigfanout${Date.now()}`, livemode: false };
    const emitter = eventEmitter({ store: { commit: async () => undefined }, queue: { enqueue: async () => undefined } });
    const audience: Subscriber[] = Array.from({ length: 16 }, (_, i) => ({
      ref: { kind: 'event_destination', scope, id: `ed_big${i}` },
      payload: 'thin',
      enabled: true,
      enabledEvents: ['v2.core.account.updated'],
      eventsFrom: ['@self'],
      created: 0,
    }));
    const change = (events = 8) => {
      const outbox = emitter.prepare(
        { scope, platformId: scope.accountId, request: null, apiVersion: '2026-10-28.endive' },
        Array.from({ length: events }, () => ({ kind: 'thin' as const, type: 'v2.core.account.updated', relatedObject: null, data: {} })),
      );
      return { outbox, ...fannedOut(outbox.fanOut!, audience, Date.now() + 86_400_000) };
    };
    const whole = change();
    const crashed = change();
    await table.transact([...outboxItems(table.name, whole.outbox), ...outboxItems(table.name, crashed.outbox)]);
    await table.transact(fanOutEntity.writeDeliveries(table.name, crashed.outbox.fanOut!, crashed.deliveries.slice(0, 60)));
    const stored = async (deliveries: Delivery[]) =>
      (await Promise.all(deliveries.map((delivery) => table.get(deliveryEntity.key(delivery.id))))).filter(Boolean);

    // When both fan out, and then run again (a redelivered message)
    expect(whole.deliveries).toHaveLength(128);
    expect(await store.complete(whole.outbox.fanOut!, whole.deliveries, whole.pendingWebhooks)).toHaveLength(128);
    // Only the 68 it wrote are for this run to enqueue: the 60 before are due for the sweeper already
    expect(await store.complete(crashed.outbox.fanOut!, crashed.deliveries, crashed.pendingWebhooks)).toEqual(crashed.deliveries.slice(60));
    expect(await store.complete(crashed.outbox.fanOut!, crashed.deliveries, crashed.pendingWebhooks)).toBeUndefined();

    // And a fan-out that fits one transaction, rerun after an interrupted run wrote 5 of its deliveries,
    // one of which the sweeper already delivered, writes only the rest and leaves that one as it is
    const small = change(2);
    await table.transact(outboxItems(table.name, small.outbox));
    await table.transact(fanOutEntity.writeDeliveries(table.name, small.outbox.fanOut!, small.deliveries.slice(0, 5)));
    await table.update({
      TableName: table.name,
      Key: deliveryEntity.key(small.deliveries[0]!.id),
      UpdateExpression: 'SET #status = :delivered',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':delivered': 'delivered' },
    });
    expect(small.deliveries).toHaveLength(32);
    expect(await store.complete(small.outbox.fanOut!, small.deliveries, small.pendingWebhooks)).toEqual(small.deliveries.slice(5));
    expect(await stored(small.deliveries)).toHaveLength(32);
    expect(deliveryEntity.parse((await table.get(deliveryEntity.key(small.deliveries[0]!.id)))!).status).toBe('delivered');

    // Then every delivery is written once, and both records are gone
    expect(await stored(whole.deliveries)).toHaveLength(128);
    expect(await stored(crashed.deliveries)).toHaveLength(128);
    expect(await table.get(fanOutEntity.key(whole.outbox.fanOut!.id))).toBeUndefined();
    expect(await table.get(fanOutEntity.key(crashed.outbox.fanOut!.id))).toBeUndefined();
  });

  it('removes the fan-out record of a change nobody subscribes to, and writes no delivery', async () => {
    // Given a platform with no destinations or endpoints
    const platform = await newPlatform();

    // When a customer is created
    const customer = await sdk(platform.secret_key).customers.create({ name: 'unheard' });
    const [event] = (await sdk(platform.secret_key).events.list({ type: 'customer.created' })).data;

    // Then its fan-out runs (it leaves the due index, a small read to wait on) and leaves nothing behind: no fan-out
    // record of the platform and no delivery of the event anywhere in the table (one scan for both)
    const isPlatforms = (item: Record<string, unknown>) => (item.platform as { accountId?: string } | undefined)?.accountId === platform.account;
    const due = async () => (await dueItems(stackTable(), 'fan-outs', Date.now() + 86_400_000, 1_000)).filter(isPlatforms);
    await eventually(async () => ((await due()).length === 0 ? true : undefined));
    const records = await scanStackTable({
      FilterExpression: '(entity = :fanOut AND platform.accountId = :account) OR (entity = :delivery AND #event.id = :event)',
      ExpressionAttributeNames: { '#event': 'event' },
      ExpressionAttributeValues: { ':fanOut': 'fan_out', ':account': platform.account, ':delivery': 'delivery', ':event': event!.id },
    });
    expect(records).toEqual([]);
    expect(event!.data.object).toMatchObject({ id: customer.id });
  });

  it('records every attempt, gives up after the retry schedule, and reports the event as not delivered', async () => {
    // Given a v1 endpoint whose receiver always fails
    const platform = await newPlatform();
    const own = sdk(platform.secret_key);
    const failing = await startWebhookReceiver();
    failing.failNext(1000, 500);
    try {
      const endpoint = await own.webhookEndpoints.create({ url: failing.url, enabled_events: ['product.updated'] });
      // The endpoint's deliveries (its GSI1 list, one small Query): a scan of the whole table at each poll took seconds late in a run.
      const endpointDeliveries = async (eventId: string) => {
        const table = stackTable();
        const { items } = await table.query({
          TableName: table.name,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :list',
          ExpressionAttributeValues: { ':list': deliveryKeys.gsi1pk({ accountId: platform.account, livemode: false }, endpoint.id) },
        });
        return items.filter((item) => (item.event as { id: string }).id === eventId) as unknown as Delivery[];
      };

      // When a product it listens to changes
      const product = await own.products.create({ name: 'Try me' });
      await own.products.update(product.id, { description: 'try me' });
      const [event] = (await own.events.list({ type: 'product.updated' })).data;

      // Then, after the first attempt and three retries, the delivery failed with four recorded attempts
      let seen: unknown;
      const [delivery] = await eventually(async () => {
        const found = await endpointDeliveries(event!.id);
        seen = found;
        return found[0]?.status === 'failed' ? found : undefined;
      }, 30_000).catch((error: Error) => {
        throw new Error(`${error.message}; the event's deliveries: ${JSON.stringify(seen)}`);
      });
      expect(delivery!.attempts).toHaveLength(4);
      expect(delivery!.attempts.every((attempt) => attempt.outcome === 'failed' && attempt.status === 500 && attempt.error === 'HTTP 500')).toBe(true);
      expect(delivery!.attempts.every((attempt) => typeof attempt.durationMs === 'number' && attempt.at > 0)).toBe(true);
      const undelivered = await own.events.list({ delivery_success: false });
      expect(undelivered.data.map((item) => item.id)).toContain(event!.id);
      expect((await own.events.retrieve(event!.id)).pending_webhooks).toBe(0);
      const delivered = await own.events.list({ delivery_success: true });
      expect(delivered.data.map((item) => item.id)).not.toContain(event!.id);
    } finally {
      await failing.stop();
    }
  });
});
