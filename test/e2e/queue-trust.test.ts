import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalSqsClient } from '#local/sqs.ts';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { newPlatform, sdk, stack } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { eventually } from '../support/wait.ts';

/**
 * A queue message is a pointer, not the truth: whoever can put a message on a queue (here: anyone who reaches
 * the SQS emulator, as a page could with three form posts) gets nothing posted, counted or reported by it.
 * The queues are shared with every other file of the run, so waiting for one to drain may take a while.
 */
describe('messages put straight on the queues', { timeout: 120_000 }, () => {
  const sqs = createLocalSqsClient(stack.env.SQS_ENDPOINT!, { accessKeyId: stack.env.AWS_ACCESS_KEY_ID!, secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY! });
  const deliveriesQueue = stack.env.DELIVERIES_QUEUE_URL!;
  const meterEventsQueue = stack.env.METER_EVENTS_QUEUE_URL!;
  let tenantA: CreatedPlatform;
  let tenantB: CreatedPlatform;
  let clientA: Stripe;
  let clientB: Stripe;
  let receiverA: WebhookReceiver;
  let receiverB: WebhookReceiver;

  const put = (queueUrl: string, message: unknown) => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));

  /** Resolves once the queue holds no message, visible or in flight: everything put on it was handled and deleted. */
  const drained = (queueUrl: string) =>
    eventually(async () => {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      );
      return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible) === 0 ? true : undefined;
    }, 90_000);

  const thinDestination = (client: Stripe, url: string) =>
    client.v2.core.eventDestinations.create({
      name: 'trusting',
      type: 'webhook_endpoint',
      event_payload: 'thin',
      enabled_events: ['v2.core.event_destination.ping'],
      webhook_endpoint: { url },
    });

  beforeAll(async () => {
    [tenantA, tenantB] = await Promise.all([newPlatform(), newPlatform()]);
    clientA = sdk(tenantA.secret_key);
    clientB = sdk(tenantB.secret_key);
    [receiverA, receiverB] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  });
  afterAll(async () => {
    await Promise.all([receiverA.stop(), receiverB.stop()]);
    sqs.destroy();
  });

  it("posts nothing for forged delivery messages (an attacker's event, another tenant's event, the other mode), while a genuine event still arrives", async () => {
    // Given a thin destination of each tenant, and one genuine event of tenant A (a ping, delivered)
    const destinationA = await thinDestination(clientA, `${receiverA.url}/a`);
    const destinationB = await thinDestination(clientB, `${receiverB.url}/b`);
    const genuine = await clientA.v2.core.eventDestinations.ping(destinationA.id);
    await receiverA.waitFor(1);
    const scopeA = { accountId: tenantA.account, livemode: false };
    const scopeB = { accountId: tenantB.account, livemode: false };
    const now = Date.now();
    const delivery = (id: string, event: { kind: string; scope: unknown; id: string }, destination: { kind: string; scope: unknown; id: string }) => ({
      deliveryId: id,
      event,
      destination,
      delivery: {
        id,
        event,
        destination,
        eventType: 'v2.core.event_destination.ping',
        explicit: true,
        status: 'pending',
        attempts: [],
        nextAttemptAt: now,
        created: now,
      },
    });
    const toA = { kind: 'event_destination', scope: scopeA, id: destinationA.id };
    const toB = { kind: 'event_destination', scope: scopeB, id: destinationB.id };

    // When messages are put straight on the deliveries queue: an event the attacker wrote, carried to A's destination;
    await put(deliveriesQueue, {
      ...delivery('dlv_forged1', { kind: 'thin', scope: scopeA, id: 'evt_forged1' }, toA),
      thinEvent: {
        id: 'evt_forged1',
        scope: scopeA,
        platformId: scopeA.accountId,
        type: 'v2.core.event_destination.ping',
        created: now,
        relatedObject: { id: 'attacker', type: 'v2.core.event_destination', url: '/attacker' },
        changes: null,
        data: { written_by: 'attacker' },
        reason: null,
        snapshotEventId: null,
      },
    });
    // A's genuine event paired with B's destination; an event id that does not exist; A's destination in live mode
    await put(deliveriesQueue, delivery('dlv_forged2', { kind: 'thin', scope: scopeA, id: genuine.id }, toB));
    await put(deliveriesQueue, delivery('dlv_forged3', { kind: 'thin', scope: scopeA, id: 'evt_unknown' }, toA));
    await put(
      deliveriesQueue,
      delivery('dlv_forged4', { kind: 'thin', scope: { ...scopeA, livemode: true }, id: genuine.id }, { ...toA, scope: { ...scopeA, livemode: true } }),
    );
    // and a fan-out message naming A's platform
    await put(deliveriesQueue, {
      fanOut: {
        id: 'fan_forged',
        platform: scopeA,
        source: '@self',
        events: [{ ref: { kind: 'thin', scope: scopeA, id: genuine.id }, type: genuine.type, creates: null }],
        created: now,
      },
      thinEvents: [],
    });
    // and a genuine event is emitted after them
    const second = await clientA.v2.core.eventDestinations.ping(destinationA.id);

    // Then the genuine event arrives, and once the queue has handled everything on it, it is all either tenant got
    await receiverA.waitFor(2);
    await drained(deliveriesQueue);
    expect(receiverA.received.map((request) => JSON.parse(request.body).id)).toEqual([genuine.id, second.id]);
    expect(receiverB.received).toEqual([]);
  });

  it('counts nothing for a forged stream batch on the meter-events queue, while genuine usage is counted', async () => {
    // Given a meter and a customer of tenant A
    const customer = await clientA.customers.create({ name: 'Metered' });
    const meter = await clientA.billing.meters.create({ display_name: 'Trusted calls', event_name: 'trusted_calls', default_aggregation: { formula: 'sum' } });
    const scopeA = { accountId: tenantA.account, livemode: false };
    const timestamp = Date.now() - 5_000;

    // When a stream batch of 1,000 units is put straight on the meter-events queue, and a genuine event of 3 units is sent
    await put(meterEventsQueue, {
      kind: 'batch',
      batch: {
        id: 'forged-batch',
        scope: scopeA,
        platformId: scopeA.accountId,
        created: Date.now(),
        events: [{ eventName: 'trusted_calls', identifier: 'forged-usage', payload: { service_customer_id: customer.id, value: '1000' }, timestamp }],
      },
    });
    await clientA.v2.billing.meterEvents.create({
      event_name: 'trusted_calls',
      identifier: 'genuine-usage',
      payload: { service_customer_id: customer.id, value: '3' },
      timestamp: new Date(timestamp).toISOString(),
    });

    // Then once the queue has handled the forged message, the meter counts the genuine event alone
    await drained(meterEventsQueue);
    const minute = 60;
    const start = Math.floor(timestamp / 1000 / minute) * minute;
    const summaries = await clientA.billing.meters.listEventSummaries(meter.id, {
      customer: customer.id,
      start_time: start - minute,
      end_time: start + 2 * minute,
    });
    expect(summaries.data.map((summary) => summary.aggregated_value)).toEqual([3]);
  });
});
