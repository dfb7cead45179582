import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { idempotencyEntity } from '#shared/data/idempotency-store.ts';
import { api, newPlatform, sdk, stack, stackTable } from '../support/stack.ts';

const form = (url: string) => `url=${encodeURIComponent(url)}&enabled_events[0]=*`;

describe('Idempotency-Key over HTTP', () => {
  let platform: CreatedPlatform;
  beforeAll(async () => {
    platform = await newPlatform();
  });

  it('creates exactly one endpoint for 50 parallel POSTs with one key, and all see the same object', async () => {
    // Given one key
    const key = randomUUID();

    // When 50 identical requests race
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: form('http://127.0.0.1:9/race'), headers: { 'idempotency-key': key } }),
      ),
    );

    // Then every answer is the same endpoint and only one exists
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
    const listed = await sdk(platform.secret_key).webhookEndpoints.list({ limit: 100 });
    expect(listed.data.filter((endpoint) => endpoint.url === 'http://127.0.0.1:9/race')).toHaveLength(1);
  });

  it('replays the stored response for a retry, secret included, naming the original request', async () => {
    const key = randomUUID();
    const first = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/retry'),
      headers: { 'idempotency-key': key },
    });
    const retry = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/retry'),
      headers: { 'idempotency-key': key },
    });

    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('original-request')).toBe(first.headers.get('request-id'));
    expect(retry.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
  });

  it('answers 400 idempotency_error for the same key with another body, which the SDK raises as its idempotency error without retrying', async () => {
    const key = randomUUID();
    await api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: form('http://127.0.0.1:9/a'), headers: { 'idempotency-key': key } });

    const other = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/b'),
      headers: { 'idempotency-key': key },
    });

    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
    expect(other.body.error.message).toContain(key);

    const client = sdk(platform.secret_key);
    const reused = await client.webhookEndpoints
      .create({ url: 'http://127.0.0.1:9/c', enabled_events: ['*'] }, { idempotencyKey: key })
      .catch((error: unknown) => error as { type: string; statusCode: number; code: string });
    expect(reused).toMatchObject({ type: 'StripeIdempotencyError', statusCode: 400, code: 'idempotency_key_reused' });
  });

  it('replays a DELETE, so that a retried delete does not turn into a 404', async () => {
    const client = sdk(platform.secret_key);
    const endpoint = await client.webhookEndpoints.create({ url: 'http://127.0.0.1:9/del', enabled_events: ['*'] });
    const key = randomUUID();

    const first = await api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: platform.secret_key, headers: { 'idempotency-key': key } });
    const retry = await api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: platform.secret_key, headers: { 'idempotency-key': key } });
    const fresh = await api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: platform.secret_key });

    expect([first.status, retry.status, fresh.status]).toEqual([200, 200, 404]);
    expect(retry.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
  });

  it('scopes keys per account: another platform may use the same key for its own request', async () => {
    const key = randomUUID();
    const other = await newPlatform();
    const mine = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/x'),
      headers: { 'idempotency-key': key },
    });
    const theirs = await api('POST', '/v1/webhook_endpoints', {
      key: other.secret_key,
      form: form('http://127.0.0.1:9/y'),
      headers: { 'idempotency-key': key },
    });

    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('does not keep validation failures, so a corrected retry with the same key succeeds', async () => {
    const key = randomUUID();
    const bad = await api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: 'enabled_events[0]=*', headers: { 'idempotency-key': key } });
    const good = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/z'),
      headers: { 'idempotency-key': key },
    });
    expect([bad.status, good.status]).toEqual([400, 200]);
  });

  it('refuses a key longer than 255 characters', async () => {
    const answer = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/z'),
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expect(answer.status).toBe(400);
  });
});

/** The calls a request made, from the stack's `x-local-aws-calls` answer: `PutItem`, `TransactWriteItems`, … */
const callsOf = (answer: { headers: Headers }) => [...(answer.headers.get('x-local-aws-calls') ?? '').matchAll(/(\w+)\(/g)].map((match) => match[1]);

describe('Idempotency-Key of a create or update answered by its event', () => {
  let platform: CreatedPlatform;
  /** A cardholder and a customer of the platform, for the routes below that need one. */
  let cardholderId: string;
  let customerId: string;
  beforeAll(async () => {
    platform = await newPlatform();
    // The account's first request makes its secret and caches its key: not what a create costs.
    await sdk(platform.secret_key).customers.create({ name: 'First of the account' });
    cardholderId = (await cardholder()).id;
    customerId = (await client().customers.create({ name: 'Billed' })).id;
  });
  const create = (form: string, key: string, headers: Record<string, string> = {}) =>
    api('POST', '/v1/customers', { key: platform.secret_key, form, headers: { 'idempotency-key': key, 'x-local-aws-calls': 'measure', ...headers } });

  it('keeps the key in the create’s own transaction, and a retry replays the customer as first answered, naming the first request', async () => {
    // Given a create with a key, at a version other than the default
    const key = randomUUID();
    const email = `${key}@example.com`;
    const first = await create(`name=Ada&email=${encodeURIComponent(email)}&metadata[plan]=gold`, key, { 'stripe-version': '2025-03-31.basil' });

    // Then it made two calls: its transaction (the customer, its event, the key's receipt) and the fan-out's enqueue
    expect(first.status).toBe(200);
    // (the test stack counts per-key rate limits: some requests also write the key's counter, an UpdateItem;
    // a claimed key would show a PutItem before and an UpdateItem after)
    expect(callsOf(first).filter((call) => call !== 'UpdateItem')).toEqual(['TransactWriteItems', 'SendMessageBatch']);
    expect(callsOf(first).filter((call) => call === 'UpdateItem').length).toBeLessThanOrEqual(1);

    // When the client retries, without naming the version
    await sdk(platform.secret_key).customers.update(first.body.id, { name: 'Changed since' });
    const retry = await create(`name=Ada&email=${encodeURIComponent(email)}&metadata[plan]=gold`, key);

    // Then it gets the first answer (not the customer as it is now), at the first answer's version, and no second customer exists
    expect(retry.status).toBe(200);
    expect(JSON.stringify(retry.body)).toBe(JSON.stringify(first.body));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('original-request')).toBe(first.headers.get('request-id'));
    expect(retry.headers.get('service-version')).toBe('2025-03-31.basil');
    const listed = await sdk(platform.secret_key).customers.list({ email, limit: 10 });
    expect(listed.data.map((customer) => customer.id)).toEqual([first.body.id]);
  });

  it('creates exactly one customer for 20 parallel POSTs with one key, and all see it', async () => {
    const key = randomUUID();
    const email = `${key}@example.com`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(`email=${encodeURIComponent(email)}`, key)));

    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    const listed = await sdk(platform.secret_key).customers.list({ email, limit: 10 });
    expect(listed.data).toHaveLength(1);
  });

  /** Each route answered by its event: where it is sent, and its parameters (`n` tells two requests apart). */
  const answeredByEvents: Array<[string, () => Promise<{ path: string; form: (n: number) => string }>]> = [
    ['a customer’s update', async () => ({ path: `/v1/customers/${(await client().customers.create({ name: 'Old' })).id}`, form: (n) => `name=New${n}` })],
    ['a product’s create', async () => ({ path: '/v1/products', form: (n) => `name=Widget${n}` })],
    ['a product’s update', async () => ({ path: `/v1/products/${(await client().products.create({ name: 'Old' })).id}`, form: (n) => `name=New${n}` })],
    [
      'a cardholder’s create',
      async () => ({
        path: '/v1/issuing/cardholders',
        form: (n) =>
          `name=Jenny ${'ABCDEFGH'[n]}&type=individual&billing[address][line1]=1 Main St&billing[address][city]=Springfield&billing[address][postal_code]=94111&billing[address][country]=US`,
      }),
    ],
    ['a cardholder’s update', async () => ({ path: `/v1/issuing/cardholders/${(await cardholder()).id}`, form: (n) => `metadata[n]=${n}` })],
    ['a card’s create', async () => ({ path: '/v1/issuing/cards', form: () => `cardholder=${cardholderId}&currency=usd&type=virtual` })],
    [
      'a card’s update',
      async () => ({
        path: `/v1/issuing/cards/${(await client().issuing.cards.create({ cardholder: cardholderId, currency: 'usd', type: 'virtual' })).id}`,
        form: (n) => `metadata[n]=${n}`,
      }),
    ],
    [
      'a test clock’s create',
      async () => {
        const frozenTime = Math.floor(Date.now() / 1000);
        return { path: '/v1/test_helpers/test_clocks', form: (n) => `frozen_time=${frozenTime}&name=clock${n}` };
      },
    ],
    [
      'a meter’s create',
      async () => {
        const prefix = `calls_${randomUUID().slice(0, 8)}`;
        return { path: '/v1/billing/meters', form: (n) => `display_name=Calls&event_name=${prefix}_${n}&default_aggregation[formula]=sum` };
      },
    ],
    [
      'a meter’s update',
      async () => {
        const meter = await client().billing.meters.create({
          display_name: 'Old',
          event_name: `m_${randomUUID().slice(0, 8)}`,
          default_aggregation: { formula: 'sum' },
        });
        return { path: `/v1/billing/meters/${meter.id}`, form: (n) => `display_name=New${n}` };
      },
    ],
    ['an invoice item’s create', async () => ({ path: '/v1/invoiceitems', form: (n) => `customer=${customerId}&amount=${100 + n}&currency=usd` })],
    [
      'an invoice item’s update',
      async () => {
        const item = await client().invoiceItems.create({ customer: customerId, amount: 100, currency: 'usd' });
        return { path: `/v1/invoiceitems/${item.id}`, form: (n) => `description=Item${n}` };
      },
    ],
    ['an invoice’s create', async () => ({ path: '/v1/invoices', form: (n) => `customer=${customerId}&description=Invoice${n}` })],
    [
      'an invoice’s update',
      async () => ({ path: `/v1/invoices/${(await client().invoices.create({ customer: customerId })).id}`, form: (n) => `description=New${n}` }),
    ],
  ];
  const client = () => sdk(platform.secret_key);
  const cardholder = () =>
    client().issuing.cardholders.create({
      name: 'Jenny Rosen',
      type: 'individual',
      billing: { address: { line1: '1 Main St', city: 'Springfield', postal_code: '94111', country: 'US' } },
    });

  it.each(answeredByEvents)('answers %s from its event the same way: the key costs no call, and a retry replays it', async (_, setup) => {
    // Given the route, and what the same request costs without a key
    const { path, form } = await setup();
    const send = (n: number, headers: Record<string, string>) =>
      api('POST', path, { key: platform.secret_key, form: form(n), headers: { 'x-local-aws-calls': 'measure', ...headers } });
    // (a keyed request reads the account's secret once per function instance, for its fingerprint)
    await send(0, { 'idempotency-key': randomUUID() });
    const keyless = await send(1, {});
    expect(keyless.status, JSON.stringify(keyless.body)).toBe(200);

    // When it is sent with a key, and sent again
    const key = randomUUID();
    const first = await send(2, { 'idempotency-key': key });
    const retry = await send(2, { 'idempotency-key': key });

    // Then the key added no write: a claimed key adds a put before the change and an update after it. (Reads
    // vary with what the function has cached, and the rate counter's updates come and go.)
    const writes = (answer: { headers: Headers }) =>
      callsOf(answer).filter((call) => call !== 'UpdateItem' && !call?.startsWith('Get') && call !== 'BatchGetItem');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(writes(first)).toEqual(writes(keyless));
    expect(writes(first)).toEqual(['TransactWriteItems', 'SendMessageBatch']);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('takes over a key whose claim was released or left by a request that died, as a claim would', async () => {
    // Given the record a claimed request leaves when it fails in a way a retry may fix (released: unlocked)
    const key = randomUUID();
    const scope = { accountId: platform.account, livemode: false };
    await stackTable().put({
      TableName: stack.env.TABLE_NAME!,
      Item: {
        ...idempotencyEntity.key(scope, key),
        entity: 'idempotency_key',
        state: 'in_progress',
        fingerprint: 'f',
        requestId: 'req_dead',
        lockedUntil: 0,
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      },
    });

    // When a create is sent with that key
    const created = await create('name=After a failure', key);

    // Then it is made at once, and its retry replays it
    expect(created.status).toBe(200);
    const retry = await create('name=After a failure', key);
    expect(retry.body).toEqual(created.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses the key with other parameters, as the SDK expects', async () => {
    const key = randomUUID();
    await create('name=First', key);
    const other = await create('name=Second', key);
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it('keeps a failure of the create itself, so that a retry replays it', async () => {
    // Given a create that fails inside the operation (a token that does not exist)
    const key = randomUUID();
    const failed = await create('source=tok_missing', key);
    expect(failed.status).toBe(400);

    // When it is retried
    const retry = await create('source=tok_missing', key);

    // Then the failure is replayed
    expect(retry.status).toBe(400);
    expect(retry.body).toEqual(failed.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('falls back to a claimed record when the create expands, and replays that', async () => {
    const key = randomUUID();
    const first = await create('name=Expanded&expand[]=test_clock', key);
    expect(callsOf(first)).toEqual(expect.arrayContaining(['PutItem', 'TransactWriteItems', 'UpdateItem']));
    const retry = await create('name=Expanded&expand[]=test_clock', key);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });
});
