import { DescribeEventBusCommand, EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEventBridgeReceiver, type EventBridgeReceiver } from '#local/eventbridge-receiver.ts';

describe('local EventBridge receiver', () => {
  let receiver: EventBridgeReceiver;
  let eventBridge: EventBridgeClient;

  beforeAll(async () => {
    receiver = await startEventBridgeReceiver({ busNames: ['service-events'] });
    eventBridge = new EventBridgeClient({
      endpoint: receiver.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  });

  afterAll(async () => {
    eventBridge?.destroy();
    await receiver?.stop();
  });

  beforeEach(async () => {
    receiver.addBus('service-events');
    await fetch(`${receiver.endpoint}/entries`, { method: 'DELETE' });
  });

  const entry = (overrides: Record<string, unknown> = {}) => ({
    EventBusName: 'service-events',
    Source: 'service.webhooks',
    DetailType: 'webhook_endpoint.created',
    Detail: JSON.stringify({ id: 'we_1' }),
    ...overrides,
  });

  it('accepts events sent with the SDK, by bus name or ARN, and records them', async () => {
    // When two events are put, one naming the bus by ARN and carrying a time and resources
    const result = await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          entry(),
          entry({
            EventBusName: 'arn:aws:events:us-east-1:123456789012:event-bus/service-events',
            Source: 'service.billing',
            Time: new Date('2025-01-02T03:04:05Z'),
            Resources: ['arn:aws:service:::customer/cus_1'],
          }),
        ],
      }),
    );

    // Then both are accepted and recorded with their IDs and parsed details
    expect(result.FailedEntryCount).toBe(0);
    expect(result.Entries).toHaveLength(2);
    expect(receiver.entries.map((recorded) => recorded.eventId)).toEqual(result.Entries?.map((accepted) => accepted.EventId));
    expect(receiver.entries[0]).toMatchObject({
      eventBusName: 'service-events',
      source: 'service.webhooks',
      detailType: 'webhook_endpoint.created',
      detail: { id: 'we_1' },
      resources: [],
    });
    expect(receiver.entries[1]).toMatchObject({
      eventBusName: 'service-events',
      time: '2025-01-02T03:04:05Z',
      resources: ['arn:aws:service:::customer/cus_1'],
    });

    // And they can be read over HTTP, filtered by source
    const billing = await (await fetch(`${receiver.endpoint}/entries?source=service.billing`)).json();
    expect(billing).toEqual([receiver.entries[1]]);
  });

  it('reports a failure per entry for an unknown bus, malformed detail or a missing field, and accepts the rest', async () => {
    // When one good entry is put alongside three bad ones
    const result = await eventBridge.send(
      new PutEventsCommand({
        Entries: [entry({ EventBusName: 'no-such-bus' }), entry({ Detail: '{not json' }), entry({ DetailType: undefined }), entry()],
      }),
    );

    // Then each bad entry fails in its position with AWS's error code, and only the good one is recorded
    expect(result.FailedEntryCount).toBe(3);
    expect(result.Entries?.map((outcome) => outcome.ErrorCode)).toEqual(['ResourceNotFoundException', 'MalformedDetail', 'InvalidArgument', undefined]);
    expect(result.Entries?.[0].ErrorMessage).toContain('no-such-bus');
    expect(receiver.entries.map((recorded) => recorded.eventId)).toEqual([result.Entries?.[3].EventId]);
  });

  it('rejects a call with more than 10 entries as a whole with a ValidationException', async () => {
    // When 11 entries are put at once
    const putting = eventBridge.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry()) }));

    // Then the call fails and nothing is recorded
    await expect(putting).rejects.toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
    expect(receiver.entries).toEqual([]);
  });

  it('treats a removed bus as deleted, for PutEvents and DescribeEventBus', async () => {
    // Given a bus that existed and is described
    const described = await eventBridge.send(new DescribeEventBusCommand({ Name: 'service-events' }));
    expect(described).toMatchObject({ Name: 'service-events', Arn: 'arn:aws:events:us-east-1:000000000000:event-bus/service-events' });

    // When it is removed
    receiver.removeBus('service-events');

    // Then entries for it fail and describing it says it does not exist
    const result = await eventBridge.send(new PutEventsCommand({ Entries: [entry()] }));
    expect(result).toMatchObject({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'ResourceNotFoundException' }] });
    await expect(eventBridge.send(new DescribeEventBusCommand({ Name: 'service-events' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('puts entries without a bus on the default bus', async () => {
    // When an entry names no bus
    const result = await eventBridge.send(new PutEventsCommand({ Entries: [entry({ EventBusName: undefined })] }));

    // Then it lands on `default`
    expect(result.FailedEntryCount).toBe(0);
    expect(receiver.entries[0].eventBusName).toBe('default');
  });

  it('forgets recorded entries on DELETE /entries', async () => {
    // Given a recorded entry
    await eventBridge.send(new PutEventsCommand({ Entries: [entry()] }));
    expect(receiver.entries).toHaveLength(1);

    // When the entries are deleted over HTTP
    const response = await fetch(`${receiver.endpoint}/entries`, { method: 'DELETE' });

    // Then none are left, in process or over HTTP
    expect(response.status).toBe(204);
    expect(receiver.entries).toEqual([]);
    expect(await (await fetch(`${receiver.endpoint}/entries`)).json()).toEqual([]);
  });

  it('answers an operation it does not implement with UnknownOperationException', async () => {
    // When a client calls ListRules
    const response = await fetch(receiver.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.ListRules' },
      body: '{}',
    });

    // Then it gets AWS's JSON error shape
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });
});
