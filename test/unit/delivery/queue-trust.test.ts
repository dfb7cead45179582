import { describe, expect, it } from 'vitest';
import { deliveriesWorker } from '#shared/delivery/deliveries-worker.ts';
import { deliveryService } from '#shared/delivery/delivery-service.ts';
import type { DeliveryStore, DeliveryUpdate } from '#shared/delivery/delivery-store.ts';
import type { EventDestination } from '#shared/event-destinations/event-destination.ts';
import type { Delivery, DestinationRef, ThinEvent } from '#shared/events/event.ts';
import { deliveryMessage, type DeliveriesQueueMessage, type FanOutMessage } from '#shared/events/ports.ts';
import { openRecord, queueSeal } from '#shared/messaging/message-seal.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memorySecretBox } from '../../support/secret-box.ts';
import type { WebhookEndpoint } from '#shared/webhook-endpoints/webhook-endpoint.ts';

const now = 1_800_000_000_000;
const tenantA: Scope = { accountId: 'acct_A', livemode: false };
const tenantB: Scope = { accountId: 'acct_B', livemode: false };
const secret = Buffer.alloc(32, 1);
const seal = queueSeal(async () => secret, 'deliveries');

const thinEvent = (scope: Scope, id = 'evt_A'): ThinEvent => ({
  id,
  scope,
  platformId: scope.accountId,
  type: 'v2.core.event_destination.ping',
  created: now,
  relatedObject: null,
  changes: null,
  data: { genuine: true },
  reason: null,
  snapshotEventId: null,
});

const destination = (scope: Scope, id: string): EventDestination => ({
  id,
  scope,
  created: now - 1000,
  updated: now - 1000,
  name: id,
  description: '',
  type: 'webhook_endpoint',
  eventPayload: 'thin',
  enabledEvents: ['v2.core.event_destination.ping'],
  eventsFrom: null,
  snapshotApiVersion: null,
  metadata: null,
  status: 'enabled',
  disabledReason: null,
  webhookEndpoint: { url: `https://hooks.example.com/${id}`, signingSecret: `whsec_${id}` },
  cloudoneEventbridge: null,
  cloudtwoEventGrid: null,
  version: 1,
});

const endpoint = (scope: Scope, id: string): WebhookEndpoint =>
  ({
    id,
    scope,
    url: `https://hooks.example.com/${id}`,
    secret: `whsec_${id}`,
    status: 'enabled',
    enabledEvents: ['*'],
    apiVersion: null,
    version: 1,
  }) as unknown as WebhookEndpoint;

const toRef = (target: { scope: Scope; id: string }, kind: DestinationRef['kind'] = 'event_destination'): DestinationRef => ({
  kind,
  scope: target.scope,
  id: target.id,
});

const pending = (id: string, event: ThinEvent, to: DestinationRef): Delivery => ({
  id,
  event: { kind: 'thin', scope: event.scope, id: event.id },
  eventType: event.type,
  destination: to,
  explicit: false,
  status: 'pending',
  attempts: [],
  nextAttemptAt: now,
  created: now,
});

/**
 * The deliveries worker on fakes: the table holds tenant A's event, delivery and destination, and tenant B's
 * destination and v1 endpoint; the sender records what it would post, with which secret.
 */
function harness() {
  const eventA = thinEvent(tenantA);
  const targets = [destination(tenantA, 'ed_A'), destination(tenantB, 'ed_B')];
  const endpoints = [endpoint(tenantA, 'we_A'), endpoint(tenantB, 'we_B')];
  const genuine = pending('dlv_A', eventA, toRef(targets[0]!));
  const posted: Array<{ url: string; secret: string; body: string }> = [];
  const updates: DeliveryUpdate[] = [];
  const fannedOut: FanOutMessage[] = [];
  const sameScope = (a: Scope, b: Scope) => a.accountId === b.accountId && a.livemode === b.livemode;
  const deliveries: DeliveryStore = {
    get: async (id) => (id === genuine.id ? genuine : undefined),
    update: async (delivery, update) => {
      // As the table: only a stored, pending delivery records an outcome.
      if (delivery.id !== genuine.id) return false;
      updates.push(update);
      return true;
    },
    overdue: async () => [],
    reschedule: async () => true,
    getMany: async () => [],
    listByDestination: async () => ({ items: [], hasMore: false, next: undefined }),
    createResend: async () => 'created',
  };
  const service = deliveryService({
    secrets: memorySecretBox(),
    deliveries,
    events: {
      getThin: async (scope, id) => (id === eventA.id && sameScope(scope, eventA.scope) ? eventA : undefined),
      getSnapshot: async () => undefined,
      listThin: async () => ({ items: [], hasMore: false }),
      listSnapshot: async () => ({ items: [], hasMore: false }),
    },
    destinations: { get: async () => undefined, replace: async () => true } as never,
    // As the table: a target is found by its owner, mode and id.
    targets: async (ref) =>
      ref.kind === 'event_destination'
        ? targets.find((found) => found.id === ref.id && sameScope(found.scope, ref.scope))
        : endpoints.find((found) => found.id === ref.id && sameScope(found.scope, ref.scope)),
    queue: { enqueue: async () => undefined },
    webhooks: {
      send: async ({ url, secret, body }) => {
        posted.push({ url, secret, body });
        return { outcome: 'delivered', status: 200, durationMs: 1, error: null, missingTarget: false };
      },
    },
    retrySchedule: { test: [60], live: [60] },
    sweepGraceMillis: 60_000,
    clock: () => now,
  });
  const worker = deliveriesWorker({ seal, deliveries: service, fanOuts: { run: async (message) => void fannedOut.push(message) } });
  let received = 0;
  const record = (body: string) => ({ messageId: `m${++received}`, body, attributes: { SenderId: 'AIDATEST' } });
  /** Puts a message on the queue as the service would (sealed), or as anyone else could (`forged`: as it is). */
  const handle = async (message: DeliveriesQueueMessage | string, how: 'sealed' | 'forged' = 'sealed') => {
    const body = typeof message === 'string' ? message : JSON.stringify(message);
    await worker(record(how === 'sealed' ? (await seal.seal([body]))[0]! : body));
  };
  return { eventA, genuine, targets, posted, updates, fannedOut, handle };
}

describe('the deliveries worker and the messages it is handed', () => {
  it('delivers a genuine message: the event, to its destination, signed with its secret', async () => {
    // Given the message the fan-out writes for tenant A's delivery
    const { genuine, eventA, posted, updates, handle } = harness();

    // When the worker handles it
    await handle(deliveryMessage(genuine, eventA));

    // Then A's event is posted to A's destination with A's secret, and the delivery is recorded delivered
    expect(posted).toEqual([{ url: 'https://hooks.example.com/ed_A', secret: 'whsec_ed_A', body: expect.stringContaining(eventA.id) }]);
    expect(updates.map((update) => update.status)).toEqual(['delivered']);
  });

  it.each([
    [
      'an event id that does not exist, carried',
      (h: ReturnType<typeof harness>) =>
        deliveryMessage(pending('dlv_X', thinEvent(tenantA, 'evt_unknown'), toRef(h.targets[0]!)), thinEvent(tenantA, 'evt_unknown')),
    ],
    [
      "tenant A's event paired with tenant B's destination",
      (h: ReturnType<typeof harness>) => deliveryMessage(pending('dlv_X', h.eventA, toRef(h.targets[1]!))),
    ],
    [
      "a live-mode event carried to tenant A's test-mode destination",
      (h: ReturnType<typeof harness>) => {
        const live = { ...h.eventA, scope: { ...tenantA, livemode: true } };
        return deliveryMessage(pending('dlv_X', live, toRef(h.targets[0]!)), live);
      },
    ],
    [
      "an attacker's event carried to tenant A's destination",
      (h: ReturnType<typeof harness>) => deliveryMessage(h.genuine, { ...h.eventA, data: { written_by: 'attacker' } }),
    ],
    ["the genuine delivery's own message, sent again by someone else", (h: ReturnType<typeof harness>) => deliveryMessage(h.genuine, h.eventA)],
  ])('refuses a forged message (%s): nothing posted, nothing recorded, nothing thrown', async (_name, forge) => {
    // Given a message written by someone without the service's secret
    const h = harness();

    // When the worker is handed it, unsealed
    await h.handle(forge(h), 'forged');

    // Then it is dropped: no post, no write, and no error for the queue to retry on
    expect(h.posted).toEqual([]);
    expect(h.updates).toEqual([]);
  });

  it("refuses a genuine message whose payload was altered on the way, and one sealed with another stack's secret or for another queue", async () => {
    // Given the genuine message, sealed
    const h = harness();
    const [sealed] = await seal.seal([JSON.stringify(deliveryMessage(h.genuine, h.eventA))]);

    // When its thin event's data is changed, or the same body is sealed with another key or for the meter-events queue
    const tampered = sealed!.replace('"genuine":true', '"genuine":false');
    const otherStack = (await queueSeal(async () => Buffer.alloc(32, 2), 'deliveries').seal([sealed!.slice(44)]))[0]!;
    const otherQueue = (await queueSeal(async () => secret, 'meter-events').seal([sealed!.slice(44)]))[0]!;
    for (const body of [tampered, otherStack, otherQueue, `${'A'.repeat(43)}.${sealed!.slice(44)}`, 'not json at all', '']) await h.handle(body, 'forged');

    // Then none of them is posted; the genuine one, handled last, is
    expect(h.posted).toEqual([]);
    await h.handle(sealed!, 'forged');
    expect(h.posted).toHaveLength(1);
  });

  it('drops a forged fan-out message instead of fanning it out', async () => {
    const h = harness();
    const fanOut: FanOutMessage = {
      fanOut: {
        id: 'fan_X',
        platform: tenantA,
        source: '@self',
        events: [{ ref: { kind: 'thin', scope: tenantA, id: 'evt_A' }, type: 'x', creates: null }],
        created: now,
      },
      thinEvents: [],
    };
    await h.handle(fanOut, 'forged');
    expect(h.fannedOut).toEqual([]);
    await h.handle(fanOut);
    expect(h.fannedOut).toEqual([fanOut]);
  });

  it.each([
    ["the target is another tenant's", (h: ReturnType<typeof harness>) => deliveryMessage(pending('dlv_A', h.eventA, toRef(h.targets[1]!)), h.eventA)],
    [
      "the target is the event's platform's, in the other mode",
      (h: ReturnType<typeof harness>) =>
        deliveryMessage(pending('dlv_A', h.eventA, toRef({ ...h.targets[0]!, scope: { ...tenantA, livemode: true } })), h.eventA),
    ],
    [
      'the message names another target than its delivery',
      (h: ReturnType<typeof harness>) => ({ ...deliveryMessage(h.genuine, h.eventA), destination: toRef(h.targets[1]!) }),
    ],
    ['the carried event is not the delivery’s', (h: ReturnType<typeof harness>) => deliveryMessage(h.genuine, { ...thinEvent(tenantB, 'evt_A') })],
    [
      'a v1 webhook endpoint is handed a thin event',
      (h: ReturnType<typeof harness>) => deliveryMessage(pending('dlv_A', h.eventA, toRef({ scope: tenantA, id: 'we_A' }, 'webhook_endpoint')), h.eventA),
    ],
  ])('refuses even a sealed message whose parts disagree with the stored records (%s)', async (_name, build) => {
    // Given a sealed message the service would never write (a bug, not an attacker)
    const h = harness();

    // When the worker handles it
    await h.handle(build(h));

    // Then nothing is posted and the stored delivery is left as it is
    expect(h.posted).toEqual([]);
    expect(h.updates).toEqual([]);
  });
});

describe('the seal when the service secret cannot be read', () => {
  it('fails the message (the queue retries it) instead of dropping it, and reads the secret again next time', async () => {
    // Given a secret whose first read fails
    let reads = 0;
    const flaky = queueSeal(async () => {
      reads++;
      if (reads === 1) throw new Error('DynamoDB unavailable');
      return secret;
    }, 'deliveries');
    const [sealed] = await seal.seal(['{"genuine":true}']);

    // When a genuine message comes in twice
    const first = openRecord(flaky, 'deliveries', { messageId: 'm', body: sealed! });

    // Then the first try throws (a failed record, retried by the queue), and the retry reads the secret and opens it
    await expect(first).rejects.toThrow('DynamoDB unavailable');
    expect(await openRecord(flaky, 'deliveries', { messageId: 'm', body: sealed! })).toBe('{"genuine":true}');
    expect(reads).toBe(2);
  });
});

describe('opening a record of the meter-events queue', () => {
  it('gives back what the service sealed for that queue, and nothing for anything else', async () => {
    const meterSeal = queueSeal(async () => secret, 'meter-events');
    const work = JSON.stringify({ kind: 'batch', batch: { id: 'b' } });
    const [sealed] = await meterSeal.seal([work]);
    const record = (body: string) => ({ messageId: 'm', body });
    expect(await openRecord(meterSeal, 'meter-events', record(sealed!))).toBe(work);
    expect(await openRecord(meterSeal, 'meter-events', record(work))).toBeUndefined();
    expect(await openRecord(meterSeal, 'meter-events', record((await seal.seal([work]))[0]!))).toBeUndefined();
  });
});
