import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { alertEvaluator } from '#shared/billing-alerts/evaluator.ts';
import { callScope, callTotals, withCallScope } from '#shared/aws/aws-calls.ts';
import { dynamoBillingAlertRepository } from '#shared/data/billing-alert-repository.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import { eventEmitter } from '#shared/events/emitter.ts';
import { minuteUsageReader } from '#shared/meter-events/summaries.ts';
import { api, meteredStackTable, newPlatform, sdk } from '../support/stack.ts';
import { eventually, quiesce } from '../support/wait.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

type Hook = { type: string; data: { object: Record<string, any> } };

describe('v1 billing alerts through the official SDK', () => {
  let key: string;
  let account: string;
  let client: Stripe;
  let receiver: WebhookReceiver;
  let endpoint: Stripe.WebhookEndpoint;
  let meter: Stripe.Billing.Meter;
  let customer: Stripe.Customer;

  const usage = (customerId: string, value: number) =>
    client.billing.meterEvents.create({ event_name: 'alert_calls', payload: { service_customer_id: customerId, value: String(value) } });
  const alertFor = (customerId: string, gte: number, title = 'Usage alert') =>
    client.billing.alerts.create({
      alert_type: 'usage_threshold',
      title,
      usage_threshold: { gte, meter: meter.id, recurrence: 'one_time', filters: [{ type: 'customer', customer: customerId }] },
    });
  /** The `billing.alert.triggered` events received so far, verified with the endpoint's secret. */
  const triggered = (): Hook[] =>
    receiver.received
      .map((request) => client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, endpoint.secret!) as unknown as Hook)
      .filter((event) => event.type === 'billing.alert.triggered');
  /** Waits until an alert fired (its event arrived) and answers its events. */
  const firings = (alertId: string, count = 1): Promise<Hook[]> =>
    eventually(() => {
      const found = triggered().filter((event) => event.data.object.alert.id === alertId);
      return found.length >= count ? found : undefined;
    }, 45_000);

  beforeAll(async () => {
    ({ secret_key: key, account } = await newPlatform());
    client = sdk(key);
    receiver = await startWebhookReceiver();
    endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['billing.alert.triggered'] });
    meter = await client.billing.meters.create({ display_name: 'Alert calls', event_name: 'alert_calls', default_aggregation: { formula: 'sum' } });
    customer = await client.customers.create({ name: 'Watched' });
  });
  afterAll(() => receiver.stop());

  it('sends billing.alert.triggered once when a customer’s usage reaches gte, and never again', async () => {
    // Given an alert at 10 for the customer
    const alert = await alertFor(customer.id, 10);
    expect(alert).toEqual({
      id: expect.stringMatching(/^alrt_/),
      object: 'billing.alert',
      alert_type: 'usage_threshold',
      livemode: false,
      status: 'active',
      title: 'Usage alert',
      usage_threshold: { filters: [{ customer: customer.id, type: 'customer' }], gte: 10, meter: meter.id, recurrence: 'one_time' },
    });

    // When usage of 5 and then 7 is reported
    await usage(customer.id, 5);
    await usage(customer.id, 7);

    // Then the endpoint receives one billing.alert.triggered for 12
    const [event] = await firings(alert.id);
    expect(event!.data.object).toEqual({
      object: 'billing.alert_triggered',
      alert: { ...alert },
      created: expect.any(Number),
      customer: customer.id,
      external_customer_id: null,
      livemode: false,
      value: 12,
    });

    // And when more usage comes, a second alert at 15 (the witness that the evaluator ran since) fires, the first does not again
    const witness = await alertFor(customer.id, 15, 'Witness');
    await usage(customer.id, 3);
    await firings(witness.id);
    await quiesce({ queues: ['deliveries'] });
    expect(triggered().filter((hook) => hook.data.object.alert.id === alert.id)).toHaveLength(1);
    expect((await client.events.list({ type: 'billing.alert.triggered' })).data.filter((e) => (e.data.object as any).alert.id === alert.id)).toHaveLength(1);
    // Event destinations hear of it too: its thin mirror relates to the alert
    const thin = (await client.v2.core.events.list({ object_id: alert.id } as never)).data;
    expect(thin.map((e) => e.type)).toEqual(['v1.billing.alert.triggered']);
    // The alert stays active: one_time fires once per customer whatever its status
    expect(await client.billing.alerts.retrieve(alert.id)).toMatchObject({ status: 'active' });
  });

  it('never fires an inactive alert, and fires it once activated', async () => {
    // Given a deactivated alert and an active witness at the same threshold for another customer
    const quiet = await client.customers.create({ name: 'Quiet' });
    const asleep = await alertFor(quiet.id, 2, 'Asleep');
    await client.billing.alerts.deactivate(asleep.id);
    const witness = await alertFor(quiet.id, 2, 'Awake');

    // When usage passes the threshold
    await usage(quiet.id, 4);

    // Then only the active one fires
    await firings(witness.id);
    await quiesce({ queues: ['deliveries'] });
    expect(triggered().filter((hook) => hook.data.object.alert.id === asleep.id)).toHaveLength(0);

    // And once activated, the other fires too, with the usage it finds
    await client.billing.alerts.activate(asleep.id);
    const [event] = await firings(asleep.id);
    expect(event!.data.object).toMatchObject({ customer: quiet.id, value: 4, alert: { id: asleep.id, status: 'active' } });
  });

  it('fires once when evaluators race on the table, reading one usage Query and writing nothing below the threshold', async () => {
    // Given evaluators of this test on the stack's table (besides the stack's own), and a pending alert as they read it
    const table = meteredStackTable();
    const repository = dynamoBillingAlertRepository(table);
    const evaluator = alertEvaluator({
      repository,
      usage: minuteUsageReader(dynamoMeterEventStore(table)),
      // The outbox is written by the firing's transaction; the fan-out sweeper enqueues it
      events: eventEmitter({ store: { commit: async () => undefined }, queue: { enqueue: async () => undefined } }),
    });
    const raced = await client.customers.create({ name: 'Raced' });
    const alert = await alertFor(raced.id, 3, 'Raced');
    const pending = (await repository.get({ accountId: account, livemode: false }, alert.id))!;

    // When it is evaluated below its threshold, it costs one usage Query and no write
    const below = callScope({ measure: true });
    expect(await withCallScope(below, () => evaluator.evaluate(pending))).toBe('below');
    expect(callTotals(below)).toMatchObject({ calls: 1, writeUnits: 0 });
    expect(callTotals(below).readUnits).toBeLessThanOrEqual(0.5);

    // And when usage reaches it and six evaluators fire it at once
    await usage(raced.id, 5);
    const firing = callScope({ measure: true });
    const outcomes = await withCallScope(firing, () => Promise.all(Array.from({ length: 6 }, () => evaluator.evaluate(pending))));

    // Then at most one of them fired it (the stack's own evaluator may have been first), and one event arrives
    expect(outcomes.filter((outcome) => outcome === 'triggered').length).toBeLessThanOrEqual(1);
    expect(await firings(alert.id)).toHaveLength(1);
    const again = await alertFor(raced.id, 6, 'Raced witness');
    await usage(raced.id, 1);
    await firings(again.id);
    await quiesce({ queues: ['deliveries'] });
    expect(triggered().filter((hook) => hook.data.object.alert.id === alert.id)).toHaveLength(1);
  });

  it('retrieves, lists by meter, deactivates, activates and archives with the reference’s transitions', async () => {
    const buyer = await client.customers.create({ name: 'Lifecycle' });
    const other = await client.billing.meters.create({ display_name: 'Other', event_name: 'other_calls', default_aggregation: { formula: 'count' } });
    const alert = await alertFor(buyer.id, 1_000);
    const elsewhere = await client.billing.alerts.create({
      alert_type: 'usage_threshold',
      title: 'On the other meter',
      usage_threshold: { gte: 5, meter: other.id, recurrence: 'one_time', filters: [{ type: 'customer', customer: buyer.id }] },
    });

    expect(await client.billing.alerts.retrieve(alert.id)).toEqual(alert);
    const byMeter = await client.billing.alerts.list({ meter: other.id });
    expect(byMeter.data.map((a) => a.id)).toEqual([elsewhere.id]);
    const typed = await client.billing.alerts.list({ alert_type: 'usage_threshold', limit: 100 });
    expect(typed.data.map((a) => a.id)).toEqual(expect.arrayContaining([alert.id, elsewhere.id]));

    // Deactivate, then again: refused
    expect(await client.billing.alerts.deactivate(alert.id)).toMatchObject({ id: alert.id, status: 'inactive' });
    await expect(client.billing.alerts.deactivate(alert.id)).rejects.toMatchObject({ statusCode: 400, code: 'alert_already_inactive' });
    // Activate, then again: refused
    expect(await client.billing.alerts.activate(alert.id)).toMatchObject({ status: 'active' });
    await expect(client.billing.alerts.activate(alert.id)).rejects.toMatchObject({ statusCode: 400, code: 'alert_already_active' });
    // Archive: for good, and out of the list
    expect(await client.billing.alerts.archive(alert.id)).toMatchObject({ status: 'archived' });
    for (const move of ['activate', 'deactivate', 'archive'] as const) {
      await expect(client.billing.alerts[move](alert.id)).rejects.toMatchObject({ statusCode: 400, code: 'alert_archived', param: 'id' });
    }
    expect(await client.billing.alerts.retrieve(alert.id)).toMatchObject({ status: 'archived' });
    const all = await client.billing.alerts.list({ limit: 100 });
    expect(all.data.map((a) => a.id)).not.toContain(alert.id);
    expect(all.data.map((a) => a.id)).toContain(elsewhere.id);
  });

  it('pages through alerts newest first with starting_after and ending_before', async () => {
    const paged = await client.customers.create({ name: 'Paged' });
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await alertFor(paged.id, 1_000 + i, `Page ${i}`));
    const first = await client.billing.alerts.list({ limit: 2 });
    expect(first.has_more).toBe(true);
    expect(first.data.map((a) => a.id)).toEqual([created[2]!.id, created[1]!.id]);
    const next = await client.billing.alerts.list({ limit: 1, starting_after: created[1]!.id });
    expect(next.data.map((a) => a.id)).toEqual([created[0]!.id]);
    const before = await client.billing.alerts.list({ limit: 1, ending_before: created[0]!.id });
    expect(before.data.map((a) => a.id)).toEqual([created[1]!.id]);
  });

  it('refuses alerts on a missing or inactive meter, for a missing customer, or without a customer', async () => {
    const base = { alert_type: 'usage_threshold' as const, title: 'Refused' };
    const filters = [{ type: 'customer' as const, customer: customer.id }];
    await expect(
      client.billing.alerts.create({ ...base, usage_threshold: { gte: 1, meter: 'mtr_missing', recurrence: 'one_time', filters } }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'usage_threshold[meter]' });

    const retired = await client.billing.meters.create({ display_name: 'Retired', event_name: 'retired_calls', default_aggregation: { formula: 'sum' } });
    await client.billing.meters.deactivate(retired.id);
    await expect(
      client.billing.alerts.create({ ...base, usage_threshold: { gte: 1, meter: retired.id, recurrence: 'one_time', filters } }),
    ).rejects.toMatchObject({
      statusCode: 400,
      code: 'archived_meter',
      param: 'usage_threshold[meter]',
    });

    await expect(
      client.billing.alerts.create({
        ...base,
        usage_threshold: { gte: 1, meter: meter.id, recurrence: 'one_time', filters: [{ type: 'customer', customer: 'cus_missing' }] },
      }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'usage_threshold[filters][0][customer]' });

    await expect(client.billing.alerts.create({ ...base, usage_threshold: { gte: 1, meter: meter.id, recurrence: 'one_time' } })).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_missing',
      param: 'usage_threshold[filters]',
    });

    // Another platform's meter and customer are missing here too
    const stranger = sdk((await newPlatform()).secret_key);
    await expect(
      stranger.billing.alerts.create({ ...base, usage_threshold: { gte: 1, meter: meter.id, recurrence: 'one_time', filters } }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'usage_threshold[meter]' });
    await expect(client.billing.alerts.retrieve('alrt_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('takes the reference’s form encoding and answers strict errors over raw HTTP', async () => {
    const form = new URLSearchParams({
      alert_type: 'usage_threshold',
      title: 'Raw',
      'usage_threshold[gte]': '25',
      'usage_threshold[meter]': meter.id,
      'usage_threshold[recurrence]': 'one_time',
      'usage_threshold[filters][0][type]': 'customer',
      'usage_threshold[filters][0][customer]': customer.id,
    }).toString();
    const created = await api('POST', '/v1/billing/alerts', { key, form });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(['alert_type', 'id', 'livemode', 'object', 'status', 'title', 'usage_threshold']);
    expect(created.body.usage_threshold).toEqual({ filters: [{ customer: customer.id, type: 'customer' }], gte: 25, meter: meter.id, recurrence: 'one_time' });

    const unknown = await api('POST', '/v1/billing/alerts', { key, form: `${form}&usage_threshold[lte]=3` });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'invalid_request_error', param: 'usage_threshold[lte]' });

    const zero = await api('POST', '/v1/billing/alerts', { key, form: form.replace('usage_threshold%5Bgte%5D=25', 'usage_threshold%5Bgte%5D=0') });
    expect(zero.status).toBe(400);
    expect(zero.body.error).toMatchObject({ type: 'invalid_request_error', param: 'usage_threshold[gte]' });

    const twoFilters = await api('POST', '/v1/billing/alerts', {
      key,
      form: `${form}&usage_threshold[filters][1][type]=customer&usage_threshold[filters][1][customer]=${customer.id}`,
    });
    expect(twoFilters.status).toBe(400);
    expect(twoFilters.body.error).toMatchObject({ type: 'invalid_request_error', param: 'usage_threshold[filters]' });

    const longId = await api('GET', `/v1/billing/alerts/${'a'.repeat(3000)}`, { key });
    expect(longId.status).toBeGreaterThanOrEqual(400);
    expect(longId.status).toBeLessThan(500);

    // A forged cursor is only a position inside the caller's own alerts (the key condition bounds it)
    const own = (await client.billing.alerts.list({ limit: 100 })).data.map((a) => a.id);
    const forged = await api('GET', '/v1/billing/alerts?starting_after=cus_forged&limit=100', { key });
    expect(forged.status).toBe(200);
    expect(forged.body.data.map((a: { id: string }) => a.id)).toEqual(own);
  });
});
