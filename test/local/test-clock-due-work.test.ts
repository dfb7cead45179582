import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalDynamoDbClient } from '#local/dynamodb.ts';
import { startLocalStack, type LocalStack } from '#local/stack.ts';
import { makeTable } from '#shared/data/table.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import { eventually } from '../support/wait.ts';

/**
 * Its own stack: the clock moves a week ahead (moving the shared test stack's clock would break every other
 * file). Moving the local clock runs the scheduled jobs at once, the billing sweeper among them.
 */
let stack: LocalStack;
let client: Stripe;
let dynamo: ReturnType<typeof createLocalDynamoDbClient>;

const moveClock = (advance: string) =>
  fetch(`${stack.baseUrl}/_local/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advance }) });

beforeAll(async () => {
  stack = await startLocalStack({ port: 0, quiet: true });
  client = new Stripe(stack.defaultPlatform.secret_key, { host: '127.0.0.1', port: Number(new URL(stack.baseUrl).port), protocol: 'http' });
  dynamo = createLocalDynamoDbClient(stack.dynamodbEndpoint, stack.engineCredentials);
}, 60_000);

afterAll(async () => {
  dynamo?.destroy();
  await stack?.stop();
});

describe('test clocks on the due engine (own local stack)', () => {
  it('Given an advance whose start message was lost, When the billing sweeper runs, Then it finishes the advance', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: 1_893_456_000 });
    // What a request that crashed after its write and before its message leaves behind: the clock advancing, due now.
    const repository = dynamoTestClockRepository(makeTable(dynamo, stack.env.TABLE_NAME!));
    const stored = (await repository.get({ accountId: stack.defaultPlatform.account, livemode: false }, clock.id))!;
    const now = Date.now();
    expect(
      await repository.replace({
        ...stored,
        version: stored.version + 1,
        status: 'advancing',
        targetFrozenTime: 1_893_542_400_000,
        due: { at: now, testClock: null },
      }),
    ).toBe(true);

    await moveClock('1s');

    const ready = await eventually(async () => {
      const read = await client.testHelpers.testClocks.retrieve(clock.id);
      return read.status === 'ready' ? read : undefined;
    }, 30_000);
    expect(ready.frozen_time).toBe(1_893_542_400);
  });

  it('Given a clock with a customer, When the stack clock passes deletes_after, Then the sweeper deletes the clock and its customer', async () => {
    const clock = await client.testHelpers.testClocks.create({ frozen_time: 1_893_456_000 });
    const customer = await client.customers.create({ test_clock: clock.id });

    await moveClock('7d');
    await moveClock('2m');

    await eventually(async () => {
      const gone = await client.testHelpers.testClocks.retrieve(clock.id).then(
        () => false,
        (error: { statusCode?: number }) => error.statusCode === 404,
      );
      return gone || undefined;
    }, 30_000);
    expect(await client.customers.retrieve(customer.id)).toMatchObject({ id: customer.id, deleted: true });
    const types = (await client.events.list({ limit: 20 })).data.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['test_helpers.test_clock.deleted', 'customer.deleted']));
  });
});
