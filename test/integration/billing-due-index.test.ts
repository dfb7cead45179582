import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dueRunner } from '#shared/billing/due-runner.ts';
import type { DueProcessor } from '#shared/billing/ports.ts';
import { dynamoBillingDueIndex } from '#shared/data/billing-due-index.ts';
import { billingDueEntry } from '#shared/data/due-index.ts';
import { makeTable } from '#shared/data/table.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { TestClock } from '#shared/test-clocks/test-clock.ts';
import { callScope, callTotals, withCallScope } from '#shared/aws/aws-calls.ts';
import { testClockService } from '#shared/test-clocks/service.ts';
import { meteredStackTable, stackClient, stackTable } from '../support/stack.ts';
import { originOf, recordingEmitter } from '../support/fakes.ts';

/** A table whose every DynamoDB call is counted by command name. */
function countedTable() {
  const client = stackClient();
  const calls: string[] = [];
  const counting = {
    send: (command: { constructor: { name: string } }) => {
      calls.push(command.constructor.name);
      return client.send(command as never);
    },
  } as unknown as DynamoDBClient;
  return { table: makeTable(counting, stackTable().name), calls };
}

const run = Date.now();
const scope: Scope = { accountId: `acct_due_${run}`, livemode: false };

describe('the billing due index on DynamoDB Local', () => {
  const table = stackTable();
  /** A billing object item as an entity builder writes it: its key, its scope, its due entry. */
  const putObject = (kind: string, id: string, at: number | null, testClock: string | null) =>
    table.put({
      TableName: table.name,
      Item: { PK: `DUE_TEST#${run}`, SK: `${kind}#${id}`, id, scope, due: { at, testClock }, ...billingDueEntry(scope, kind, id, { at, testClock }) },
    });

  it("Given objects on a clock, When the clock's partition is read, Then the earliest due by the bound comes first, one item per Query, and other clocks stay apart", async () => {
    const clockId = `clock_index_${run}`;
    await putObject('subscription', 'sub_late', 300, clockId);
    await putObject('invoice', 'in_first', 100, clockId);
    await putObject('subscription', 'sub_mid', 200, clockId);
    await putObject('subscription', 'sub_other', 50, `${clockId}_other`);
    const { table: counted, calls } = countedTable();
    const index = dynamoBillingDueIndex(counted);

    const first = await index.earliestOnClock(scope, clockId, 250);
    const none = await index.earliestOnClock(scope, clockId, 99);

    expect(first).toEqual({ scope, kind: 'invoice', id: 'in_first', at: 100 });
    expect(none).toBeUndefined();
    expect(calls).toEqual(['QueryCommand', 'QueryCommand']);
    expect(await index.dueNow(first!)).toBe(100);
    await putObject('invoice', 'in_first', null, clockId);
    expect(await index.dueNow(first!)).toBeNull();
    expect(calls.at(-1)).toBe('GetItemCommand');
  });

  it('Given objects in the stack queue, When it is swept by a time, Then those due by then are found across the shards, and later ones are not', async () => {
    const future = Date.now() + 10 * 365 * 86_400_000;
    await putObject('subscription', `sub_stack_${run}`, future, null);
    await putObject('invoice', `in_stack_later_${run}`, future + 1_000, null);
    const index = dynamoBillingDueIndex(table);

    const found = (await index.stackDue(future, 1_000)).filter((entry) => entry.scope.accountId === scope.accountId);

    expect(found).toEqual([{ scope, kind: 'subscription', id: `sub_stack_${run}`, at: future }]);
  });

  it("Given a stored test clock, When it is written ready and then advancing, Then it is in the stack queue at deletes_after, then at the advance's start", async () => {
    const repository = dynamoTestClockRepository(table);
    const created = Date.now() + 20 * 365 * 86_400_000;
    const clock: TestClock = {
      id: `clock_stored_${run}`,
      scope,
      version: 1,
      created,
      deletesAfter: created + 1_000,
      frozenTime: 1_893_456_000_000,
      name: null,
      status: 'ready',
      targetFrozenTime: null,
      failedRuns: 0,
      customers: [],
      due: { at: created + 1_000, testClock: null },
      platformId: scope.accountId,
      apiVersion: '2026-10-28.endive',
    };
    const index = dynamoBillingDueIndex(table);
    const ours = async (by: number) => (await index.stackDue(by, 1_000)).filter((entry) => entry.id === clock.id);

    expect(await repository.create(clock)).toBe(true);
    expect(await ours(created + 999)).toEqual([]);
    expect(await ours(created + 1_000)).toEqual([{ scope, kind: 'test_clock', id: clock.id, at: created + 1_000 }]);
    expect(
      await repository.replace({
        ...clock,
        version: 2,
        status: 'advancing',
        targetFrozenTime: clock.frozenTime + 1_000,
        due: { at: created + 10, testClock: null },
      }),
    ).toBe(true);
    expect(await ours(created + 10)).toEqual([{ scope, kind: 'test_clock', id: clock.id, at: created + 10 }]);
    // Deleting takes the version read: an older one is refused.
    expect(await repository.delete(clock)).toBe(false);
    expect(await repository.delete({ ...clock, version: 2 })).toBe(true);
    expect(await ours(created + 10)).toEqual([]);
  });

  it('Given objects on a clock whose processors write their next due time, When the runner runs the clock on the table, Then every step runs in time order and each Query reads one entry', async () => {
    const clockId = `clock_run_${run}`;
    await putObject('subscription', 'sub_a', 1_000, clockId);
    await putObject('invoice', 'in_b', 1_500, clockId);
    const log: string[] = [];
    const processor =
      (kind: string, next: (at: number) => number | null): DueProcessor =>
      async (_scope, id, at) => {
        log.push(`${kind}:${id}@${at}`);
        await putObject(kind, id, next(at), clockId);
      };
    const { table: counted, calls } = countedTable();
    const runner = dueRunner({
      processors: { subscription: processor('subscription', (at) => (at < 3_000 ? at + 1_000 : null)), invoice: processor('invoice', () => null) },
      index: dynamoBillingDueIndex(counted),
    });

    expect(await runner.runClock(scope, clockId, 2_500, Number.POSITIVE_INFINITY)).toBe('done');

    expect(log).toEqual(['subscription:sub_a@1000', 'invoice:in_b@1500', 'subscription:sub_a@2000']);
    // One Query per step and one that finds nothing due (DynamoDB Local's index is never behind).
    expect(calls.filter((name) => name === 'QueryCommand')).toHaveLength(4);
  });
  it('Given a test clock with nothing due on it, When it advances, Then the request and the run cost the calls and units docs/billing.md states', async () => {
    const table = meteredStackTable();
    const clocks = dynamoTestClockRepository(table);
    const runner = dueRunner({ processors: {}, index: dynamoBillingDueIndex(table) });
    const service = testClockService({
      repository: clocks,
      customers: { get: async () => undefined, hasSubscriptions: async () => false },
      events: recordingEmitter().events,
      deleteCustomer: async () => undefined,
      intervals: async () => [],
      runWork: runner.runClock,
      wake: async () => undefined,
    });
    const own: Scope = { accountId: `acct_cost_${run}`, livemode: false };
    const clock = await service.create(originOf(own), { frozen_time: 1_893_456_000 });

    const request = callScope({ measure: true });
    await withCallScope(request, () => service.advance(originOf(own), clock.id, 1_893_542_400));
    const work = callScope({ measure: true });
    await withCallScope(work, () => service.processDue(own, clock.id, Date.now()));

    // The request: the clock read, then one transaction of the clock, its event and the fan-out record.
    expect(request.calls.map((call) => call.operation)).toEqual(['GetItem', 'TransactWriteItems']);
    expect(callTotals(request)).toEqual({ calls: 2, readUnits: 0.5, writeUnits: 11 });
    // The run: the clock read, the partition's one empty Query, the final read and transaction.
    expect(work.calls.map((call) => call.operation)).toEqual(['GetItem', 'Query', 'GetItem', 'TransactWriteItems']);
    expect(callTotals(work)).toEqual({ calls: 4, readUnits: 1, writeUnits: 11 });
    expect(await clocks.get(own, clock.id)).toMatchObject({ status: 'ready', frozenTime: 1_893_542_400_000 });
  });
});
