import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEventGridReceiver, type EventGridReceiver, type ReceivedCloudEvent } from '#local/event-grid-receiver.ts';
import type { CloudEvent } from '#shared/delivery/event-grid-sender.ts';

const single = 'application/cloudevents+json; charset=utf-8';
const batch = 'application/cloudevents-batch+json; charset=utf-8';

describe('local Event Grid receiver', () => {
  let receiver: EventGridReceiver;

  beforeAll(async () => {
    receiver = await startEventGridReceiver();
  });

  afterAll(async () => {
    await receiver?.stop();
  });

  beforeEach(async () => {
    receiver.restoreTopic('orders');
    await fetch(`${receiver.endpoint}/events`, { method: 'DELETE' });
  });

  const cloudEvent = (overrides: Record<string, unknown> = {}): CloudEvent =>
    ({
      specversion: '1.0',
      id: 'evt_1',
      source: '/service/accounts/acct_1',
      type: 'v1.customer.created',
      time: '2026-11-22T10:00:00.000Z',
      datacontenttype: 'application/json',
      data: { id: 'evt_1', object: 'v2.core.event' },
      ...overrides,
    }) as CloudEvent;

  const post = (topic: string, body: unknown, contentType = single) =>
    fetch(`${receiver.endpoint}/partner-topics/${encodeURIComponent(topic)}/events`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

  it('listens on 127.0.0.1 at a free port', () => {
    // Then the endpoint is a loopback URL with a port chosen by the system
    expect(receiver.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(receiver.endpoint).not.toBe('http://127.0.0.1:0');
  });

  it('accepts one structured-mode event for any topic and records it', async () => {
    // When one event is posted to a topic nobody created
    const response = await post('orders', cloudEvent());

    // Then it is accepted and recorded with its topic and arrival time
    expect(response.status).toBe(200);
    expect(receiver.events).toHaveLength(1);
    expect(receiver.events[0]).toMatchObject({ topic: 'orders', event: cloudEvent() });
    expect(Date.parse(receiver.events[0]!.receivedAt)).not.toBeNaN();
  });

  it('accepts a batch as a whole and records every event in order', async () => {
    // When a batch of two events is posted
    const response = await post('orders', [cloudEvent({ id: 'evt_1' }), cloudEvent({ id: 'evt_2' })], batch);

    // Then both are recorded, in order
    expect(response.status).toBe(200);
    expect(receiver.events.map((received) => received.event.id)).toEqual(['evt_1', 'evt_2']);
  });

  it('refuses an event missing a required CloudEvents attribute with a 400 naming it', async () => {
    // When events with a wrong specversion, an empty id, and no type are posted
    const wrongVersion = await post('orders', cloudEvent({ specversion: '0.3' }));
    const emptyId = await post('orders', cloudEvent({ id: '' }));
    const noType = await post('orders', cloudEvent({ type: undefined }));

    // Then each is refused with a JSON error that names the attribute, and nothing is recorded
    expect([wrongVersion.status, emptyId.status, noType.status]).toEqual([400, 400, 400]);
    expect(await errorOf(wrongVersion)).toMatchObject({ code: 'BadRequest', message: expect.stringContaining('specversion') });
    expect((await errorOf(emptyId)).message).toContain("'id'");
    expect((await errorOf(noType)).message).toContain("'type'");
    expect(receiver.events).toEqual([]);
  });

  it('refuses a whole batch when one of its events is invalid', async () => {
    // When a batch holds one good event and one without a source
    const response = await post('orders', [cloudEvent({ id: 'evt_1' }), cloudEvent({ id: 'evt_2', source: undefined })], batch);

    // Then the batch is refused, pointing at the bad event, and neither event is recorded
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toMatch(/^Event 1: .*'source'/);
    expect(receiver.events).toEqual([]);
  });

  it('refuses malformed JSON, a shape that does not match the media type, and other media types', async () => {
    // When bodies that are not one event in the declared form are posted
    const malformed = await post('orders', '{"specversion":');
    const arrayAsSingle = await post('orders', [cloudEvent()]);
    const objectAsBatch = await post('orders', cloudEvent(), batch);
    const emptyBatch = await post('orders', [], batch);
    const plainJson = await post('orders', cloudEvent(), 'application/json');

    // Then each gets a 4xx with a JSON error and nothing is recorded
    expect([malformed.status, arrayAsSingle.status, objectAsBatch.status, emptyBatch.status]).toEqual([400, 400, 400, 400]);
    expect(plainJson.status).toBe(415);
    expect(await errorOf(plainJson)).toMatchObject({ code: 'UnsupportedMediaType' });
    expect(receiver.events).toEqual([]);
  });

  it('answers 404 NotFound for a removed topic until it is restored', async () => {
    // Given a removed topic
    receiver.removeTopic('orders');

    // When an event is posted to it
    const removed = await post('orders', cloudEvent());

    // Then it is refused as not found and not recorded
    expect(removed.status).toBe(404);
    expect(await errorOf(removed)).toMatchObject({ code: 'NotFound', message: expect.stringContaining('orders') });
    expect(receiver.events).toEqual([]);

    // And once restored, the topic accepts events again
    receiver.restoreTopic('orders');
    expect((await post('orders', cloudEvent())).status).toBe(200);
    expect(receiver.events).toHaveLength(1);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    // When an event with more than a mebibyte of data is posted
    const response = await post('orders', cloudEvent({ data: { padding: 'x'.repeat(1024 * 1024) } }));

    // Then it is refused as too large
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toMatchObject({ code: 'RequestEntityTooLarge' });
    expect(receiver.events).toEqual([]);
  });

  it('lists recorded events over HTTP, filtered by topic, and forgets them on DELETE /events', async () => {
    // Given events on two topics, one with a name that needs encoding
    await post('orders', cloudEvent({ id: 'evt_1' }));
    await post('billing/eu', cloudEvent({ id: 'evt_2' }));

    // When they are listed, all and by topic
    const all = await (await fetch(`${receiver.endpoint}/events`)).json();
    const billing = (await (await fetch(`${receiver.endpoint}/events?topic=${encodeURIComponent('billing/eu')}`)).json()) as ReceivedCloudEvent[];

    // Then the lists match what was recorded
    expect(all).toEqual(receiver.events);
    expect(all).toHaveLength(2);
    expect(billing).toEqual([receiver.events[1]]);
    expect(billing[0]).toMatchObject({ topic: 'billing/eu', event: { id: 'evt_2' } });

    // When they are deleted
    const deleted = await fetch(`${receiver.endpoint}/events`, { method: 'DELETE' });

    // Then none are left, in process or over HTTP
    expect(deleted.status).toBe(204);
    expect(receiver.events).toEqual([]);
    expect(await (await fetch(`${receiver.endpoint}/events`)).json()).toEqual([]);
  });
});
