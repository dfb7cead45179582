import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

describe('v1 billing meters through the official SDK', () => {
  let client: Stripe;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    client = sdk((await newPlatform()).secret_key);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  it('creates a meter with the default payload keys', async () => {
    const meter = await client.billing.meters.create({ display_name: 'API calls', event_name: 'api_call', default_aggregation: { formula: 'sum' } });

    expect(meter).toMatchObject({
      object: 'billing.meter',
      display_name: 'API calls',
      event_name: 'api_call',
      customer_mapping: { event_payload_key: 'service_customer_id', type: 'by_id' },
      value_settings: { event_payload_key: 'value' },
      default_aggregation: { formula: 'sum' },
      event_time_window: null,
      status: 'active',
      status_transitions: { deactivated_at: null },
      livemode: false,
    });
    expect(meter.id).toMatch(/^mtr_/);
    expect(await client.billing.meters.retrieve(meter.id)).toMatchObject({ id: meter.id, event_name: 'api_call' });
  });

  it('refuses a second meter for the same event name', async () => {
    await client.billing.meters.create({ display_name: 'a', event_name: 'dup_event', default_aggregation: { formula: 'count' } });
    await expect(client.billing.meters.create({ display_name: 'b', event_name: 'dup_event', default_aggregation: { formula: 'count' } })).rejects.toMatchObject(
      {
        statusCode: 400,
        code: 'meter_event_name_taken',
        param: 'event_name',
      },
    );
  });

  it('updates the display name, deactivates and reactivates, listing by status', async () => {
    const meter = await client.billing.meters.create({
      display_name: 'storage',
      event_name: 'gb_stored',
      default_aggregation: { formula: 'last' },
      customer_mapping: { event_payload_key: 'account', type: 'by_id' },
      value_settings: { event_payload_key: 'gb' },
      event_time_window: 'hour',
    });

    const renamed = await client.billing.meters.update(meter.id, { display_name: 'Storage' });
    const inactive = await client.billing.meters.deactivate(meter.id);
    const inactiveList = await client.billing.meters.list({ status: 'inactive' });
    const again = await client.billing.meters.deactivate(meter.id).catch((error: unknown) => error);
    const active = await client.billing.meters.reactivate(meter.id);

    expect(renamed.display_name).toBe('Storage');
    expect(inactive.status).toBe('inactive');
    expect(inactive.status_transitions.deactivated_at).toEqual(expect.any(Number));
    expect(inactiveList.data.map((item) => item.id)).toEqual([meter.id]);
    expect(again).toMatchObject({ statusCode: 400, code: 'meter_already_inactive' });
    expect(active).toMatchObject({ status: 'active', status_transitions: { deactivated_at: null } });
    expect((await client.billing.meters.list({ status: 'inactive' })).data).toEqual([]);
    await expect(client.billing.meters.retrieve('mtr_missing')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('emits billing.meter events to subscribed endpoints', async () => {
    await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['billing.meter.created', 'billing.meter.deactivated'] });

    const meter = await client.billing.meters.create({ display_name: 'evented', event_name: 'evented', default_aggregation: { formula: 'count' } });
    await client.billing.meters.deactivate(meter.id);

    const requests = await receiver.waitFor(2);
    const types = requests.map((request) => JSON.parse(request.body)).map((event) => [event.type, event.data.object.id]);
    expect(types).toEqual(
      expect.arrayContaining([
        ['billing.meter.created', meter.id],
        ['billing.meter.deactivated', meter.id],
      ]),
    );
    const deactivated = requests.map((request) => JSON.parse(request.body)).find((event) => event.type === 'billing.meter.deactivated');
    expect(deactivated.data.previous_attributes).toMatchObject({ status: 'active' });
  });
});
