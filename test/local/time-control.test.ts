import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalDynamoDbClient } from '#local/dynamodb.ts';
import { startLocalStack, type LocalStack } from '#local/stack.ts';
import { launchChromium } from '../support/browser.ts';
import { eventually } from '../support/wait.ts';
import type { Delivery } from '#shared/events/event.ts';

/**
 * Its own stack (moving the clock of the shared test stack would break every other file), with the
 * documented production settings: retries 60 s, 30 min and 2 h after the failures in test mode (±20 %
 * jitter), the sweeper's one-minute grace, the scheduled jobs every 10 s of machine time.
 */
let stack: LocalStack;
let client: Stripe;
const documentedTestSchedule = [60, 1800, 7200];

/** A webhook endpoint that always fails, recording each attempt. */
let failing: Server;
const attempts: string[] = [];
/** Attempts by path: each test's endpoint has a path of its own. */
const hits = new Map<string, number>();

const clockUrl = () => `${stack.baseUrl}/_local/clock`;
async function moveClock(change: { advance: string | number } | { to: string | number } | { reset: true }) {
  const response = await fetch(clockUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(change) });
  return { status: response.status, body: (await response.json()) as any };
}
const admin = async (...args: string[]) =>
  (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args, '--url', stack.baseUrl])).stdout;
const clockNow = async (): Promise<number> => ((await (await fetch(clockUrl())).json()) as { now: number }).now;

async function deliveryTo(endpointId: string): Promise<Delivery> {
  const dynamo = createLocalDynamoDbClient(stack.dynamodbEndpoint, stack.engineCredentials);
  const { Items = [] } = await dynamo.send(
    new ScanCommand({ TableName: stack.env.TABLE_NAME, FilterExpression: 'entity = :delivery', ExpressionAttributeValues: { ':delivery': { S: 'delivery' } } }),
  );
  dynamo.destroy();
  const found = Items.map((item) => unmarshall(item) as Delivery).filter((delivery) => delivery.destination.id === endpointId);
  expect(found).toHaveLength(1);
  return found[0]!;
}

beforeAll(async () => {
  // In a full run the shared stack's global setup has sped up retries, sweeps and windows in the
  // environment this worker inherited: this stack runs with the documented settings instead.
  for (const name of Object.keys(process.env)) {
    if (/^(DELIVERY_|SWEEP_|METER_ERROR_|RATE_LIMIT_|API_KEY_CACHE_)/.test(name)) delete process.env[name];
  }
  stack = await startLocalStack({ port: 0, quiet: true });
  client = new Stripe(stack.defaultPlatform.secret_key, { host: '127.0.0.1', port: Number(new URL(stack.baseUrl).port), protocol: 'http' });
  failing = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      attempts.push(String(request.headers['service-signature']));
      hits.set(request.url ?? '', (hits.get(request.url ?? '') ?? 0) + 1);
      response.writeHead(500).end('down');
    });
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => failing?.close(resolve));
  await stack?.stop();
});

describe('local time control', () => {
  it('reads the clock: the machine clock until moved, also through npm run admin -- clock', async () => {
    const answer = (await (await fetch(clockUrl())).json()) as { now: number };
    expect(answer).toMatchObject({ object: 'local_clock', offset_seconds: 0 });
    expect(Math.abs(answer.now - Date.now() / 1000)).toBeLessThan(60);

    expect(JSON.parse(await admin('clock'))).toMatchObject({ object: 'local_clock', offset_seconds: 0 });
  });

  it('retries a failing webhook endpoint on the documented schedule, each retry attempted as soon as the clock reaches it', { timeout: 240_000 }, async () => {
    // Given a test-mode webhook endpoint that always fails, and a change that emits an event for it
    const port = (failing.address() as AddressInfo).port;
    const endpoint = await client.webhookEndpoints.create({ url: `http://127.0.0.1:${port}/hook`, enabled_events: ['customer.created'] });
    await client.customers.create({ name: 'retried' });
    // The first attempt goes at once
    await eventually(async () => (attempts.length === 1 ? true : undefined));
    let delivery = await eventually(async () => {
      const found = await deliveryTo(endpoint.id);
      return found.attempts.length === 1 ? found : undefined;
    });

    for (const [retry, step] of documentedTestSchedule.entries()) {
      // The retry is scheduled the documented time after the last attempt, give or take the 20 % jitter
      const last = delivery.attempts.at(-1)!;
      const due = delivery.nextAttemptAt!;
      expect(due - last.at).toBeGreaterThanOrEqual(step * 800);
      expect(due - last.at).toBeLessThanOrEqual(step * 1200);

      // When the clock is moved to 5 s before it is due, nothing is attempted (the move answers once what
      // became due has been attempted)
      expect((await moveClock({ to: (due - 5000) / 1000 })).status).toBe(200);
      expect(attempts).toHaveLength(retry + 1);

      // When it is moved just past the due time (SQS delays are whole seconds, counted from when the worker
      // queued the retry, a moment after the attempt began), the retry has been attempted
      expect((await moveClock({ to: (due + 5000) / 1000 })).status).toBe(200);
      expect(attempts).toHaveLength(retry + 2);
      delivery = await deliveryTo(endpoint.id);
      expect(delivery.attempts).toHaveLength(retry + 2);
      // (at its due time, within the second the worker allows: SQS delays are whole seconds, and a move replays
      // the clock through the instant the retry's message becomes visible)
      expect(delivery.attempts.at(-1)!.at).toBeGreaterThanOrEqual(due - 1000);
    }

    // Then after the last retry the delivery has failed, and three days later nothing more was attempted
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect((await moveClock({ advance: '3d' })).status).toBe(200);
    expect(attempts).toHaveLength(documentedTestSchedule.length + 1);
    // The signature's timestamp stays the machine's, which receivers check against their own clocks
    const signedAt = Number(/t=(\d+)/.exec(attempts.at(-1)!)![1]);
    expect(Math.abs(signedAt - Date.now() / 1000)).toBeLessThan(300);
  });

  it('Given a failing endpoint, When the clock advances 3 h once, Then every retry that fell due was attempted, each at its own due time and scheduled from the attempt before', {
    timeout: 240_000,
  }, async () => {
    // Given a test-mode webhook endpoint that always fails, and its first attempt made
    const port = (failing.address() as AddressInfo).port;
    const endpoint = await client.webhookEndpoints.create({ url: `http://127.0.0.1:${port}/three-hours`, enabled_events: ['product.created'] });
    await client.products.create({ name: 'replayed' });
    await eventually(async () => (hits.get('/three-hours') === 1 ? true : undefined));
    await eventually(async () => ((await deliveryTo(endpoint.id)).attempts.length === 1 ? true : undefined));

    // When the clock advances 3 h, once
    const moved = await moveClock({ advance: '3h' });
    expect(moved.status).toBe(200);
    expect(moved.body.replay).toMatchObject({ complete: true });
    const jumpEnd = moved.body.now * 1000;

    // Then each retry was attempted the documented time after the attempt before it (±20 % jitter; SQS delays
    // are whole seconds; a step settles in well under 15 s), not at the jump's end
    const delivery = await deliveryTo(endpoint.id);
    const made = delivery.attempts;
    expect(made.length).toBeGreaterThanOrEqual(3);
    for (let retry = 1; retry < made.length; retry++) {
      const gap = made[retry]!.at - made[retry - 1]!.at;
      expect(gap).toBeGreaterThanOrEqual(documentedTestSchedule[retry - 1]! * 800 - 1000);
      expect(gap).toBeLessThanOrEqual(documentedTestSchedule[retry - 1]! * 1200 + 15_000);
      expect(made[retry]!.at).toBeLessThanOrEqual(jumpEnd + 1000);
    }
    expect(hits.get('/three-hours')).toBe(made.length);
    // and nothing that fell due in the 3 h is left: the delivery has failed after its last retry, or (when the
    // jitter put the last one past 3 h) waits for it after the jump
    if (delivery.status === 'failed') expect(made).toHaveLength(documentedTestSchedule.length + 1);
    else expect(delivery).toMatchObject({ status: 'pending', attempts: { length: documentedTestSchedule.length } });
    if (delivery.status === 'pending') expect(delivery.nextAttemptAt!).toBeGreaterThan(jumpEnd);
    // The API lists the same attempts, at the same times
    const listed = (await client.rawRequest('GET', `/v2/service/webhook_endpoints/${endpoint.id}/deliveries`)) as any;
    expect(listed.data[0].attempts.map((attempt: { attempted_at: string }) => Date.parse(attempt.attempted_at))).toEqual(made.map((attempt) => attempt.at));
  });

  it('Given a clock moved ahead, When an event is resent, Then the resend is stamped with the stack’s clock and listed with the endpoint’s deliveries', {
    timeout: 240_000,
  }, async () => {
    // Given an endpoint with a failed delivery, and the clock a day ahead
    const port = (failing.address() as AddressInfo).port;
    const endpoint = await client.webhookEndpoints.create({ url: `http://127.0.0.1:${port}/resent`, enabled_events: ['product.updated'] });
    const product = await client.products.create({ name: 'to be resent' });
    await client.products.update(product.id, { name: 'resent' });
    await eventually(async () => (hits.get('/resent') === 1 ? true : undefined));
    const delivery = await eventually(async () => {
      const found = await deliveryTo(endpoint.id);
      return found.attempts.length === 1 ? found : undefined;
    });
    await moveClock({ advance: '1d' });

    // When the event is resent to the endpoint
    const resent = (await client.rawRequest('POST', `/v2/service/events/${delivery.event.id}/resend`, { webhook_endpoint: endpoint.id })) as any;

    // Then its delivery is created at the stack's time, a day ahead of the machine's
    const now = await clockNow();
    expect(Math.abs(Date.parse(resent.created) / 1000 - now)).toBeLessThan(60);
    expect(Date.parse(resent.created) / 1000 - Date.now() / 1000).toBeGreaterThan(86_400 - 60);
    // and once attempted, its attempt has the same clock's time, and the endpoint's list has it first
    const listed = await eventually(async () => {
      const page = (await client.rawRequest('GET', `/v2/service/webhook_endpoints/${endpoint.id}/deliveries`)) as any;
      const found = page.data.find((each: { id: string }) => each.id === resent.id);
      return found?.attempts.length === 1 ? page : undefined;
    });
    expect(listed.data[0].id).toBe(resent.id);
    expect(Math.abs(Date.parse(listed.data[0].attempts[0].attempted_at) / 1000 - now)).toBeLessThan(60);
  });

  it('Given no --rate-limits, When one key sends a burst of requests, Then none is refused with 429', async () => {
    // Given a stack started without rateLimits (as npm start without --rate-limits), no RATE_LIMIT_* variable set
    expect(stack.env).toMatchObject({ RATE_LIMIT_PER_KEY_TEST: '0', RATE_LIMIT_SEARCH_TEST: '0', RATE_LIMIT_METER_EVENTS_TEST: '0' });

    // When 150 requests go at once, over the reference's 100 a second
    const statuses = await Promise.all(
      Array.from({ length: 150 }, async () => {
        const response = await fetch(`${stack.baseUrl}/v1/customers?limit=1`, { headers: { authorization: `Bearer ${stack.defaultPlatform.secret_key}` } });
        await response.arrayBuffer();
        return response.status;
      }),
    );

    // Then every one was answered
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('expires a token 10 minutes after its creation on the moved clock', async () => {
    const token = await client.tokens.create({ pii: { id_number: '000000000' } });
    expect((await client.tokens.retrieve(token.id)).id).toBe(token.id);
    await moveClock({ advance: '11m' });
    await expect(client.tokens.retrieve(token.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('accepts an adjustment within 24 hours of the event and refuses it once 24 hours have been advanced', async () => {
    // Given a meter and two events received now
    const customer = await client.customers.create({ name: 'metered' });
    await client.billing.meters.create({ display_name: 'Calls', event_name: 'timed_calls', default_aggregation: { formula: 'sum' } });
    for (const identifier of ['early', 'late']) {
      await client.v2.billing.meterEvents.create({ event_name: 'timed_calls', payload: { service_customer_id: customer.id, value: '1' }, identifier });
    }

    // When 23 hours pass (moved with npm run admin), one is cancelled
    expect(JSON.parse(await admin('clock', 'advance', '23h'))).toMatchObject({ object: 'local_clock' });
    const accepted = await client.v2.billing.meterEventAdjustments.create({ event_name: 'timed_calls', type: 'cancel', cancel: { identifier: 'early' } });
    expect(accepted.status).toBe('pending');

    // Then once 24 hours have passed the other can no longer be
    await moveClock({ advance: '1h1m' });
    await expect(
      client.v2.billing.meterEventAdjustments.create({ event_name: 'timed_calls', type: 'cancel', cancel: { identifier: 'late' } }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'meter_event_cancellation_window_expired' });
  });

  it('bounds meter event timestamps by the moved clock, and forgets events after their 30 days', async () => {
    // Given an event emitted now on the moved clock
    const customer = await client.customers.create({ name: 'old news' });
    const [event] = (await client.events.list({ type: 'customer.created', limit: 1 })).data;
    expect(event!.data.object).toMatchObject({ id: customer.id });

    // When the clock is moved 36 days on
    await moveClock({ advance: '36d' });

    // Then a meter event stamped with the machine's time is more than 35 days old, one stamped now is fine
    const machineNow = Math.floor(Date.now() / 1000);
    await expect(
      client.v2.billing.meterEvents.create({
        event_name: 'timed_calls',
        payload: { service_customer_id: customer.id, value: '1' },
        timestamp: new Date(machineNow * 1000).toISOString(),
      }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'timestamp_too_far_in_past' });
    const now = await clockNow();
    await client.v2.billing.meterEvents.create({
      event_name: 'timed_calls',
      payload: { service_customer_id: customer.id, value: '1' },
      timestamp: new Date(now * 1000).toISOString(),
    });

    // And the event is gone (kept 30 days)
    await expect(client.events.retrieve(event!.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('never goes back: an instant before now is refused with 400, as is a change that is not JSON', async () => {
    const before = await clockNow();
    const back = await moveClock({ to: before - 3600 });
    expect(back.status).toBe(400);
    expect(back.body.error).toMatchObject({ type: 'invalid_request_error', code: 'local_clock_backwards', param: 'to' });
    const form = await fetch(clockUrl(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'advance=1h' });
    expect(form.status).toBe(415);
    expect(await clockNow()).toBeGreaterThanOrEqual(before);
    expect(await clockNow()).toBeLessThan(before + 60);
  });

  it('moves the clock from the dashboard’s Time view, which then shows the new time', async () => {
    // Given the Time view of the default platform
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${stack.baseUrl}/dashboard/${stack.defaultPlatform.account}/test/time`);
      const before = await clockNow();

      // When "+1d" is pressed
      await page.getByRole('button', { name: '+1d' }).click();

      // Then the stack's clock is a day ahead, the view says so, and shows the new time
      await page.locator('#clock-result', { hasText: 'The clock is now' }).waitFor({ timeout: 60_000 });
      const after = await clockNow();
      expect(after - before).toBeGreaterThanOrEqual(86_400);
      expect(after - before).toBeLessThan(86_400 + 60);
      await page.reload();
      expect(Number.parseFloat((await page.locator('#clock-offset').textContent())!)).toBeGreaterThanOrEqual(86_400);
      const shown = Date.parse(`${(await page.locator('#clock-now time').getAttribute('datetime'))!}`) / 1000;
      expect(Math.abs(shown - after)).toBeLessThan(60);

      // and a duration it cannot read is refused on the page, the clock unmoved
      await page.getByLabel('Advance by').fill('soon');
      await page.getByRole('button', { name: 'Advance', exact: true }).click();
      await page.locator('#clock-result.error').waitFor();
      expect((await clockNow()) - after).toBeLessThan(60);
    } finally {
      await browser.close();
    }
  });

  it('Given a moved clock, When it is reset through the API and npm run admin, Then it is the machine’s time again and what was stamped ahead keeps its stamps', {
    timeout: 240_000,
  }, async () => {
    // Given a customer created two days ahead of the machine's time
    await moveClock({ advance: '2d' });
    const ahead = await client.customers.create({ name: 'from ahead' });
    expect(ahead.created).toBeGreaterThan(Date.now() / 1000 + 86_400);

    // When the clock is reset
    const reset = await moveClock({ reset: true });

    // Then it reads the machine's time, with no offset
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ object: 'local_clock', offset_seconds: 0 });
    expect(Math.abs(reset.body.now - Date.now() / 1000)).toBeLessThan(60);
    // and the customer keeps its stamp, next to one created now at the machine's time
    expect(((await client.customers.retrieve(ahead.id)) as Stripe.Customer).created).toBe(ahead.created);
    const current = await client.customers.create({ name: 'from now' });
    expect(Math.abs(current.created - Date.now() / 1000)).toBeLessThan(60);
    const listed = (await client.customers.list({ limit: 100 })).data.map((customer) => customer.id);
    expect(listed).toEqual(expect.arrayContaining([ahead.id, current.id]));

    // When it is moved again and reset with npm run admin -- clock reset, Then it is the machine's time again
    await moveClock({ advance: '1h' });
    const answer = JSON.parse(await admin('clock', 'reset'));
    expect(answer).toMatchObject({ object: 'local_clock', offset_seconds: 0 });
    expect(Math.abs((await clockNow()) - Date.now() / 1000)).toBeLessThan(60);
    // and a reset that is not `true` is refused
    expect((await moveClock({ reset: 'yes' } as never)).body.error).toMatchObject({ code: 'parameter_invalid', param: 'reset' });
  });
});
