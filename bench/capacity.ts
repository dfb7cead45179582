/**
 * `npm run bench:capacity`: what each API operation and each worker invocation costs in DynamoDB calls,
 * read units and write units, on DynamoDB Local, through the local stack's call counting (the
 * `x-local-aws-calls` header of each response, and `LOCAL_AWS_CALLS` lines for the workers). Each
 * operation runs warm (after one call of the same kind), so the API key lookup and the meter lookup are
 * the cached ones a busy function sees. Prints a markdown table for docs/capacity.md; asserts nothing.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Stripe from 'stripe';
import type { AddressInfo } from 'node:net';
import { startServiceProcess } from '#local/service-process.ts';
import { settleDelaySeconds } from '#shared/meter-events/usage-lease.ts';
import { benchmarkRateLimits } from './rate-limits.ts';

const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200).end('ok'));
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const service = await startServiceProcess(['--in-memory'], { POWERTOOLS_LOG_LEVEL: 'ERROR', LOCAL_AWS_CALLS: 'true', ...benchmarkRateLimits });
const rows: string[] = [];

interface Cost {
  calls: number;
  read: number;
  write: number;
}

async function call(
  method: string,
  path: string,
  body?: { form?: string; json?: unknown; idempotencyKey?: string },
  key = service.secretKey,
): Promise<{ status: number; body: any; cost: Cost }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body?.idempotencyKey !== undefined) headers['idempotency-key'] = body.idempotencyKey;
  if (body?.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  if (body?.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers,
    body: body?.form ?? (body?.json !== undefined ? JSON.stringify(body.json) : undefined),
  });
  const text = await response.text();
  const header = response.headers.get('x-local-aws-calls') ?? '';
  const number = (name: string) => Number(new RegExp(`${name}=([\\d.]+)`).exec(header)?.[1] ?? NaN);
  return { status: response.status, body: text ? JSON.parse(text) : null, cost: { calls: number('calls'), read: number('read'), write: number('write') } };
}

/** Runs `operation` twice and records the second (warm) run's cost. */
async function measure(label: string, operation: (run: number) => Promise<{ status: number; cost: Cost; body: any }>): Promise<any> {
  await operation(0);
  const { status, cost, body } = await operation(1);
  if (status >= 400) throw new Error(`${label} answered ${status}: ${JSON.stringify(body)}`);
  rows.push(`| ${label} | ${cost.calls} | ${cost.read} | ${cost.write} |`);
  return body;
}

/** The worker lines printed since `from`, summed per function. */
function workerCosts(from: number): Map<string, Cost & { records: number; invocations: number }> {
  const totals = new Map<string, Cost & { records: number; invocations: number }>();
  for (const line of service.output().slice(from).split('\n')) {
    const match = /^aws-calls (\{.*\})$/.exec(line.trim());
    if (!match) continue;
    const entry = JSON.parse(match[1]!) as { function: string; records: number; calls: number; readUnits: number; writeUnits: number };
    const total = totals.get(entry.function) ?? { calls: 0, read: 0, write: 0, records: 0, invocations: 0 };
    totals.set(entry.function, {
      calls: total.calls + entry.calls,
      read: total.read + entry.readUnits,
      write: total.write + entry.writeUnits,
      records: total.records + entry.records,
      invocations: total.invocations + 1,
    });
  }
  return totals;
}

const settle = (millis = 3_000) => new Promise((resolve) => setTimeout(resolve, millis));

/**
 * Meter events as users send them, first on the freshly started stack: through the official SDK (which keys
 * every POST with an `Idempotency-Key`) over HTTP, one after another, v1 and v2 in turn; each request asks
 * for its cost (`x-local-aws-calls: measure`). Prints the first event's cost and the spread of the rest.
 */
async function meterEventsThroughTheSdk(count: number): Promise<void> {
  const inner = Stripe.createNodeHttpClient();
  const httpClient = Object.create(inner) as Stripe.HttpClient;
  httpClient.makeRequest = (host, port, path, method, headers, data, protocol, timeout) =>
    inner.makeRequest(host, port, path, method, { ...headers, 'x-local-aws-calls': 'measure' }, data, protocol, timeout);
  const { hostname, port } = new URL(service.baseUrl);
  const client = new Stripe(service.secretKey, { host: hostname, port: Number(port), protocol: 'http', httpClient });
  await client.billing.meters.create({ display_name: 'SDK cost', event_name: 'sdk_cost', default_aggregation: { formula: 'sum' } });
  const buyer = await client.customers.create({ name: 'SDK cost' });
  const payload = { service_customer_id: buyer.id, value: '1' };
  const units: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const sent =
      i % 2 === 0
        ? await client.billing.meterEvents.create({ event_name: 'sdk_cost', payload })
        : await client.v2.billing.meterEvents.create({ event_name: 'sdk_cost', payload });
    units.push(Number(/write=([\d.]+)/.exec(sent.lastResponse.headers['x-local-aws-calls'] ?? '')?.[1] ?? Number.NaN));
  }
  const seconds = (performance.now() - started) / 1000;
  const rest = units.slice(1);
  const mean = rest.reduce((sum, each) => sum + each, 0) / rest.length;
  const atThree = rest.filter((each) => each === 3).length;
  console.log(
    `Meter events through the official SDK (Idempotency-Key on each), fresh stack, ${count} sent one after another (${(count / seconds).toFixed(0)}/s): ` +
      `first ${units[0]} write units; the rest mean ${mean.toFixed(3)}, ${atThree} of ${rest.length} at 3, max ${Math.max(...rest)}`,
  );
}

try {
  await meterEventsThroughTheSdk(400);
  // Authentication, the rate counter and idempotency are part of every figure, as they are on AWS.
  await measure('`POST /v1/webhook_endpoints` (an endpoint for `customer.*`; emits no event, as the reference)', (run) =>
    call('POST', '/v1/webhook_endpoints', {
      form: `url=${encodeURIComponent(receiverUrl)}&enabled_events[0]=customer.created&enabled_events[1]=customer.updated&description=run-${run}`,
    }),
  );
  const customer = await measure('`POST /v1/customers` (emits `customer.created` to 2 endpoints)', () =>
    call('POST', '/v1/customers', { form: 'name=Capacity' }),
  );
  await measure('`GET /v1/customers/:id`', () => call('GET', `/v1/customers/${customer.id}`));
  await measure('`GET /v1/customers?limit=10`', () => call('GET', '/v1/customers?limit=10'));
  await measure("`GET /v1/customers/search?query=name:'Capacity'`", () => call('GET', `/v1/customers/search?query=${encodeURIComponent("name:'Capacity'")}`));
  await measure('`POST /v1/customers/:id` (emits `customer.updated` to 2 endpoints)', (run) =>
    call('POST', `/v1/customers/${customer.id}`, { form: `name=Capacity-${run}` }),
  );
  // As the official SDK sends them: every POST with an Idempotency-Key.
  await measure('`POST /v1/customers` with an `Idempotency-Key` (its receipt in the create’s transaction)', () =>
    call('POST', '/v1/customers', { form: 'name=Capacity', idempotencyKey: randomUUID() }),
  );
  await measure('`POST /v1/customers/:id` with an `Idempotency-Key` (its receipt in the update’s transaction)', (run) =>
    call('POST', `/v1/customers/${customer.id}`, { form: `name=Keyed-${run}`, idempotencyKey: randomUUID() }),
  );
  await measure('`POST /v1/tokens` (card)', () =>
    call('POST', '/v1/tokens', { form: 'card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123' }),
  );
  await measure('`POST /v2/core/event_destinations`', (run) =>
    call('POST', '/v2/core/event_destinations', {
      json: {
        name: `capacity-${run}`,
        type: 'webhook_endpoint',
        event_payload: 'thin',
        enabled_events: ['v2.core.account.created'],
        webhook_endpoint: { url: receiverUrl },
      },
    }),
  );
  const account = await measure('`POST /v2/core/accounts`', (run) =>
    call('POST', '/v2/core/accounts', { json: { display_name: `Capacity ${run}`, contact_email: 'capacity@example.com' } }),
  );
  await measure('`GET /v2/core/accounts/:id`', () => call('GET', `/v2/core/accounts/${account.id}`));
  await measure('`GET /v2/core/accounts?limit=10`', () => call('GET', '/v2/core/accounts?limit=10'));
  // Single-use tokens spent by the write that uses them, the catalogue's counted prices, issuing money movements.
  const cardToken = async () =>
    (await call('POST', '/v1/tokens', { form: 'card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123' })).body.id;
  const tokens = [await cardToken(), await cardToken()];
  await measure('`POST /v1/customers` with `source=tok_…` (the card attached, the token used up)', (run) =>
    call('POST', '/v1/customers', { form: `name=Sourced&source=${tokens[run]}` }),
  );
  const accountTokens = [
    (await call('POST', '/v2/core/account_tokens', { json: { display_name: 'Token 0' } })).body.id,
    (await call('POST', '/v2/core/account_tokens', { json: { display_name: 'Token 1' } })).body.id,
  ];
  await measure('`POST /v2/core/account_tokens`', () => call('POST', '/v2/core/account_tokens', { json: { display_name: 'Token' } }));
  await measure('`POST /v2/core/accounts` with `account_token` (the token used up)', (run) =>
    call('POST', '/v2/core/accounts', { json: { account_token: accountTokens[run] } }),
  );
  const product = await measure('`POST /v1/products`', () => call('POST', '/v1/products', { form: 'name=Capacity' }));
  await measure('`POST /v1/prices` (the product counts its prices)', () =>
    call('POST', '/v1/prices', { form: `product=${product.id}&unit_amount=100&currency=usd` }),
  );
  await measure('`POST /v1/products/:id`', (run) => call('POST', `/v1/products/${product.id}`, { form: `name=Capacity-${run}` }));
  await measure('`POST /v1/prices` with an `Idempotency-Key` (claimed: a put before, the response sealed after)', () =>
    call('POST', '/v1/prices', { form: `product=${product.id}&unit_amount=100&currency=usd`, idempotencyKey: randomUUID() }),
  );
  const spare = [
    (await call('POST', '/v1/products', { form: 'name=Spare 0' })).body.id,
    (await call('POST', '/v1/products', { form: 'name=Spare 1' })).body.id,
  ];
  await measure('`DELETE /v1/products/:id` (a product without prices)', (run) => call('DELETE', `/v1/products/${spare[run]}`));
  // Deleted customers are tombstones that lists skip; email lists read GSI1; subscriptions claim their customer.
  await call('POST', '/v1/customers', { form: 'name=Found&email=found%40example.test' });
  await measure('`GET /v1/customers?email=…&limit=10` (GSI1, one match)', () => call('GET', '/v1/customers?email=found%40example.test&limit=10'));
  await measure('`GET /v1/customers?created[gte]=…&limit=10` (a key range)', () => call('GET', `/v1/customers?created[gte]=${customer.created}&limit=10`));
  const monthly = (await call('POST', '/v1/prices', { form: `product=${product.id}&unit_amount=100&currency=usd&recurring[interval]=month` })).body.id;
  // A subscription collecting automatically is charged on creation: a card makes it `active`.
  const payer = (await call('POST', '/v1/customers', { form: 'name=Payer&source=tok_visa' })).body.id;
  await measure('`POST /v1/subscriptions` (its first invoice written with it, finalized and charged: the customer numbered, 5 events)', () =>
    call('POST', '/v1/subscriptions', { form: `customer=${payer}&items[0][price]=${monthly}` }),
  );
  const leaving = [
    (await call('POST', '/v1/customers', { form: 'name=Leaving 0&email=leaving%40example.test' })).body.id,
    (await call('POST', '/v1/customers', { form: 'name=Leaving 1&email=leaving%40example.test' })).body.id,
  ];
  await measure('`DELETE /v1/customers/:id` (no sources or subscriptions)', (run) => call('DELETE', `/v1/customers/${leaving[run]}`));
  await measure('`GET /v1/customers/:id` of a deleted customer', () => call('GET', `/v1/customers/${leaving[0]}`));
  await measure('`DELETE /v1/customers/:id` (its 2 subscriptions canceled, each with its event)', async (run) => {
    const subscriber = (await call('POST', '/v1/customers', { form: `name=Subscriber ${run}` })).body.id;
    for (let i = 0; i < 2; i++) await call('POST', '/v1/subscriptions', { form: `customer=${subscriber}&items[0][price]=${monthly}` });
    return call('DELETE', `/v1/customers/${subscriber}`);
  });
  const cardholder = (
    await call('POST', '/v1/issuing/cardholders', {
      form: 'name=Jenny Rosen&billing[address][line1]=1 Main St&billing[address][city]=Oakland&billing[address][postal_code]=94607&billing[address][country]=US',
    })
  ).body;
  const card = (await call('POST', '/v1/issuing/cards', { form: `cardholder=${cardholder.id}&currency=usd&type=virtual&status=active` })).body;
  const authorizations = [
    (await call('POST', '/v1/test_helpers/issuing/authorizations', { form: `card=${card.id}&amount=1000` })).body.id,
    (await call('POST', '/v1/test_helpers/issuing/authorizations', { form: `card=${card.id}&amount=1000` })).body.id,
  ];
  const captured = await measure('`POST /v1/test_helpers/issuing/authorizations/:id/capture` (the authorization and its capture transaction)', (run) =>
    call('POST', `/v1/test_helpers/issuing/authorizations/${authorizations[run]}/capture`, { form: '' }),
  );
  await measure('`POST /v1/test_helpers/issuing/transactions/:id/refund` (part of a capture)', () =>
    call('POST', `/v1/test_helpers/issuing/transactions/${captured.transactions[0].id}/refund`, { form: 'refund_amount=100' }),
  );
  await call('POST', '/v1/billing/meters', { form: 'display_name=Capacity&event_name=capacity_calls&default_aggregation[formula]=sum' });
  await measure('`POST /v2/billing/meter_events`', (run) =>
    call('POST', '/v2/billing/meter_events', {
      json: { event_name: 'capacity_calls', identifier: `capacity-${run}`, payload: { service_customer_id: customer.id, value: '1' } },
    }),
  );
  await measure('`POST /v1/billing/meter_events` (the same event on the v1 wire)', (run) =>
    call('POST', '/v1/billing/meter_events', {
      form: `event_name=capacity_calls&identifier=capacity-v1-${run}&payload[service_customer_id]=${customer.id}&payload[value]=1`,
    }),
  );
  await measure('`POST /v2/billing/meter_event_adjustments`', (run) =>
    call('POST', '/v2/billing/meter_event_adjustments', { json: { event_name: 'capacity_calls', type: 'cancel', cancel: { identifier: `capacity-${run}` } } }),
  );
  await measure('`POST /v1/billing/meter_event_adjustments`', (run) =>
    call('POST', '/v1/billing/meter_event_adjustments', { form: `event_name=capacity_calls&type=cancel&cancel[identifier]=capacity-v1-${run}` }),
  );
  const session = await call('POST', '/v2/billing/meter_event_session');
  await measure('`POST /v2/billing/meter_event_stream` (100 events)', (run) =>
    call(
      'POST',
      '/v2/billing/meter_event_stream',
      {
        json: {
          events: Array.from({ length: 100 }, (_, i) => ({
            event_name: 'capacity_calls',
            identifier: `stream-${run}-${i}`,
            payload: { service_customer_id: customer.id, value: '1' },
          })),
        },
      },
      session.body.authentication_token,
    ),
  );

  // The workers: what the changes above queued, and then a known load of each kind, one kind at a time.
  await settle(settleDelaySeconds * 1000 + 3_000);
  const workerRow = async (label: string, name: string, per: string, load: () => Promise<unknown>, wait = 3_000) => {
    const before = service.output().length;
    const answer = (await load()) as { status?: number; body?: unknown } | undefined;
    if (answer?.status !== undefined && answer.status >= 400) throw new Error(`${label}: the load answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    await settle(wait);
    const cost = workerCosts(before).get(name);
    if (!cost) throw new Error(`${label}: no ${name} invocation seen`);
    const divisor = per === 'event' ? 100 : per === 'change' ? 20 : cost.records;
    rows.push(
      `| ${label} (${cost.invocations} invocations), per ${per} | ${(cost.calls / divisor).toFixed(2)} | ${(cost.read / divisor).toFixed(2)} | ${(cost.write / divisor).toFixed(2)} |`,
    );
  };
  await workerRow('`deliverEvent`: 20 changes fanned out to 2 endpoints each (20 fan-outs, 40 deliveries)', 'deliverEvent', 'change', async () => {
    for (let i = 0; i < 20; i++) await call('POST', `/v1/customers/${customer.id}`, { form: `name=Load-${i}` });
  });
  await workerRow(
    '`processMeterEvents`: the settle messages of 20 API meter events',
    'processMeterEvents',
    'message',
    async () => {
      for (let i = 0; i < 20; i++) {
        await call('POST', '/v2/billing/meter_events', {
          json: { event_name: 'capacity_calls', identifier: `load-${i}`, payload: { service_customer_id: customer.id, value: '1' } },
        });
      }
    },
    settleDelaySeconds * 1000 + 3_000,
  );
  const stream = (prefix: string, customerOf: (i: number) => string) =>
    call(
      'POST',
      '/v2/billing/meter_event_stream',
      {
        json: {
          events: Array.from({ length: 100 }, (_, i) => ({
            event_name: 'capacity_calls',
            identifier: `${prefix}-${i}`,
            payload: { service_customer_id: customerOf(i), value: '1' },
          })),
        },
      },
      session.body.authentication_token,
    );
  await workerRow('`processMeterEvents`: a 100-event stream request of one customer', 'processMeterEvents', 'event', () =>
    stream('load-stream', () => customer.id),
  );
  // Made 20 at a time: a hundred at once would pass the key's 100 requests a second and be answered 429.
  const many: string[] = [];
  for (let batch = 0; batch < 5; batch++) {
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => call('POST', '/v1/customers', { form: `name=Many-${batch * 20 + i}` })));
    for (const { status, body } of made) {
      if (status >= 400) throw new Error(`creating the stream's customers answered ${status}: ${JSON.stringify(body)}`);
      many.push(body.id as string);
    }
    await settle(1_000);
  }
  await workerRow('`processMeterEvents`: a 100-event stream request over 50 customers (two events each)', 'processMeterEvents', 'event', () =>
    stream('load-pairs', (i) => many[i % 50]!),
  );
  await measure('`POST /v2/billing/meter_event_stream` (100 events of 100 customers, counted at once)', (run) => stream(`load-lone-${run}`, (i) => many[i]!));

  console.log('| Operation | DynamoDB calls | Read units | Write units |\n|---|---|---|---|');
  console.log(rows.join('\n'));
} finally {
  await service.stop();
  receiver.close();
}
