import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const day = 24 * 60 * 60;
const jan2030 = 1_893_456_000;

describe('test clocks through the official SDK', () => {
  let client: Stripe;
  let key: string;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  const readyClock = (id: string) =>
    eventually(async () => {
      const clock = await client.testHelpers.testClocks.retrieve(id);
      return clock.status === 'advancing' ? undefined : clock;
    }, 30_000);

  it('Given a frozen time, When a test clock is created, Then it is ready at that time, deleted after seven days, retrievable and listed', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030, name: 'Annual renewal' });

    expect(clock).toEqual({
      id: expect.stringMatching(/^clock_/),
      object: 'test_helpers.test_clock',
      created: expect.any(Number),
      deletes_after: clock.created + 7 * day,
      frozen_time: jan2030,
      livemode: false,
      name: 'Annual renewal',
      status: 'ready',
      status_details: {},
    });
    expect(await client.testHelpers.testClocks.retrieve(clock.id)).toEqual(clock);
    expect((await client.testHelpers.testClocks.list({ limit: 100 })).data.map((each) => each.id)).toContain(clock.id);
    const events = await client.events.list({ type: 'test_helpers.test_clock.created' });
    expect(events.data.map((event) => (event.data.object as { id: string }).id)).toContain(clock.id);
  });

  it('Given a test clock, When it advances, Then it answers advancing with its target, becomes ready at the target and emits advancing then ready', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030 });
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['test_helpers.test_clock.ready'] });

    const advancing = await client.testHelpers.testClocks.advance(clock.id, { frozen_time: jan2030 + 40 * day });

    expect(advancing).toMatchObject({
      id: clock.id,
      status: 'advancing',
      frozen_time: jan2030,
      status_details: { advancing: { target_frozen_time: jan2030 + 40 * day } },
    });
    expect(await readyClock(clock.id)).toMatchObject({ status: 'ready', frozen_time: jan2030 + 40 * day, status_details: {} });
    const types = (await client.events.list({ limit: 100 })).data
      .filter((event) => (event.data.object as { id: string }).id === clock.id)
      .map((event) => event.type)
      .reverse();
    expect(types).toEqual(['test_helpers.test_clock.created', 'test_helpers.test_clock.advancing', 'test_helpers.test_clock.ready']);
    const [request] = await receiver.waitFor(1, 30_000);
    const event = client.webhooks.constructEvent(request!.body, request!.headers['service-signature'] as string, endpoint.secret!);
    expect(event).toMatchObject({ type: 'test_helpers.test_clock.ready', data: { object: { id: clock.id, status: 'ready' } } });
    await client.webhookEndpoints.del(endpoint.id);
  });

  it('Given a test clock, When it is advanced backwards, to its own time, or more than two years ahead, Then each is a 400 naming frozen_time', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030 });

    for (const frozen_time of [jan2030 - 1, jan2030, jan2030 + 2 * 366 * day]) {
      await expect(client.testHelpers.testClocks.advance(clock.id, { frozen_time })).rejects.toMatchObject({
        statusCode: 400,
        type: 'StripeInvalidRequestError',
        param: 'frozen_time',
      });
    }
    expect(await client.testHelpers.testClocks.retrieve(clock.id)).toMatchObject({ status: 'ready', frozen_time: jan2030 });
  });

  it('Given a clock whose customer has a monthly subscription, When it advances more than two months, Then it is refused, and two months are allowed', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030 });
    const customer = await client.customers.create({ test_clock: clock.id });
    const price = await client.prices.create({ product_data: { name: 'Monthly' }, unit_amount: 1000, currency: 'usd', recurring: { interval: 'month' } });
    await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });

    // 2030-01-01 + two months is 2030-03-01.
    await expect(client.testHelpers.testClocks.advance(clock.id, { frozen_time: 1_898_553_600 + 1 })).rejects.toMatchObject({
      statusCode: 400,
      param: 'frozen_time',
    });
    await client.testHelpers.testClocks.advance(clock.id, { frozen_time: 1_898_553_600 });
    expect(await readyClock(clock.id)).toMatchObject({ status: 'ready', frozen_time: 1_898_553_600 });
  });

  it('Given a test clock, When customers are created on it, Then they show it, at most three fit, and the clock must exist in this account and mode', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030 });
    const first = await client.customers.create({ name: 'On the clock', test_clock: clock.id });
    await client.customers.create({ test_clock: clock.id });
    await client.customers.create({ test_clock: clock.id });

    expect(first).toMatchObject({ test_clock: clock.id });
    expect(await client.customers.retrieve(first.id)).toMatchObject({ test_clock: clock.id });
    expect((await client.customers.create({ name: 'Off the clock' })).test_clock).toBeNull();
    const listed = await client.customers.list({ test_clock: clock.id, limit: 10 });
    expect(listed.data.map((each) => each.test_clock)).toEqual([clock.id, clock.id, clock.id]);
    expect(listed.data.map((each) => each.id)).toContain(first.id);
    const expanded = await client.customers.retrieve(first.id, { expand: ['test_clock'] });
    expect((expanded as Stripe.Customer).test_clock).toMatchObject({ id: clock.id, object: 'test_helpers.test_clock', status: 'ready' });
    await expect(client.customers.create({ test_clock: clock.id })).rejects.toMatchObject({
      statusCode: 400,
      param: 'test_clock',
      code: 'test_clock_customer_limit',
    });
    await expect(client.customers.create({ test_clock: 'clock_missing' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'test_clock',
      code: 'resource_missing',
    });
    const other = sdk((await newPlatform()).secret_key);
    await expect(other.customers.create({ test_clock: clock.id })).rejects.toMatchObject({ statusCode: 400, param: 'test_clock', code: 'resource_missing' });
    // test_clock is set once, at creation.
    await expect(client.customers.update(first.id, { test_clock: clock.id } as Stripe.CustomerUpdateParams)).rejects.toMatchObject({
      statusCode: 400,
      param: 'test_clock',
    });
  });

  it('Given a clock with a customer who has a subscription, When the clock is deleted, Then the customer is deleted, its subscription canceled, and the clock is gone', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030 });
    const customer = await client.customers.create({ test_clock: clock.id });
    const price = await client.prices.create({ product_data: { name: 'Weekly' }, unit_amount: 300, currency: 'usd', recurring: { interval: 'week' } });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });

    expect(await client.testHelpers.testClocks.del(clock.id)).toEqual({ id: clock.id, object: 'test_helpers.test_clock', deleted: true });

    expect(await client.customers.retrieve(customer.id)).toMatchObject({ id: customer.id, deleted: true });
    expect(await client.subscriptions.retrieve(subscription.id)).toMatchObject({ status: 'canceled' });
    await expect(client.testHelpers.testClocks.retrieve(clock.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const types = (await client.events.list({ limit: 100 })).data.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['test_helpers.test_clock.deleted', 'customer.deleted', 'customer.subscription.deleted']));
  });

  it('Given an existing customer, When a clock is created with it, Then the customer shows the clock with customer.updated, and it cannot join another clock', async () => {
    const customer = await client.customers.create({ name: 'Joins later' });

    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030, customer: customer.id });

    expect(await client.customers.retrieve(customer.id)).toMatchObject({ test_clock: clock.id });
    const updated = (await client.events.list({ type: 'customer.updated', limit: 10 })).data.find(
      (event) => (event.data.object as { id: string }).id === customer.id,
    );
    expect(updated?.data).toMatchObject({ object: { test_clock: clock.id }, previous_attributes: { test_clock: null } });
    await expect(client.testHelpers.testClocks.create({ frozen_time: jan2030, customer: customer.id })).rejects.toMatchObject({
      statusCode: 400,
      param: 'customer',
    });
    await expect(client.testHelpers.testClocks.create({ frozen_time: jan2030, customer: 'cus_missing' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'customer',
    });
  });

  it('Given a customer on a clock, When the customer is deleted, Then the clock has room for another customer', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030 });
    const customers = await Promise.all([1, 2, 3].map(() => client.customers.create({ test_clock: clock.id })));

    await client.customers.del(customers[0]!.id);

    expect(await client.customers.create({ test_clock: clock.id })).toMatchObject({ test_clock: clock.id });
  });

  it("Given another platform's clock or a live mode key, When the clock is read or made, Then it is a 404 or a 400 livemode_mismatch", async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: jan2030 });
    const other = sdk((await newPlatform()).secret_key);
    const live = sdk((await newPlatform({ livemode: true })).secret_key);

    await expect(other.testHelpers.testClocks.retrieve(clock.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(other.testHelpers.testClocks.advance(clock.id, { frozen_time: jan2030 + day })).rejects.toMatchObject({ statusCode: 404 });
    await expect(other.testHelpers.testClocks.del(clock.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(live.testHelpers.testClocks.create({ frozen_time: jan2030 })).rejects.toMatchObject({ statusCode: 400, code: 'livemode_mismatch' });
    await expect(live.customers.create({ test_clock: clock.id })).rejects.toMatchObject({ statusCode: 400, param: 'test_clock' });
  });

  it('Given raw requests, When a parameter is unknown or the frozen time is not a timestamp, Then each is a 400 naming it', async () => {
    const unknown = await api('POST', '/v1/test_helpers/test_clocks', { key, form: 'frozen_time=1893456000&speed=fast' });
    const notTime = await api('POST', '/v1/test_helpers/test_clocks', { key, form: 'frozen_time=soon' });
    const missing = await api('POST', '/v1/test_helpers/test_clocks', { key, form: 'name=x' });
    const longId = await api('GET', `/v1/test_helpers/test_clocks/clock_${'x'.repeat(3000)}`, { key });

    expect(unknown).toMatchObject({ status: 400, body: { error: { param: 'speed' } } });
    expect(notTime).toMatchObject({ status: 400, body: { error: { param: 'frozen_time' } } });
    expect(missing).toMatchObject({ status: 400, body: { error: { param: 'frozen_time' } } });
    expect(longId.status).toBeGreaterThanOrEqual(400);
    expect(longId.status).toBeLessThan(500);
  });
});
