import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callScope, withCallScope } from '#shared/aws/aws-calls.ts';
import { meterErrorWindow } from '#shared/data/keys.ts';
import { dynamoErrorWindowStore, errorWindowEntity } from '#shared/data/metering/error-windows.ts';
import type { MeterEventError } from '#shared/meter-events/meter-event.ts';
import { meteredStackTable, stackTable } from '../support/stack.ts';

const windowMillis = 60_000;
/**
 * Windows far ahead of any clock the shared stack reaches (tests move it by days): its report job, which reads
 * windows due by now every 2 s, never reports one of these in the middle of a test.
 */
const ahead = (hour: number) => Date.UTC(2100, 0, 5, hour, 0);

describe('meter error windows on DynamoDB Local', () => {
  const scope = { accountId: `acct_${randomUUID().slice(0, 12)}`, livemode: false };
  const meterId = `mtr_${randomUUID().slice(0, 12)}`;
  const pk = meterErrorWindow.pk(scope, meterId);
  const error = (code: string, identifier: string): MeterEventError => ({
    scope,
    platformId: scope.accountId,
    meterId,
    code,
    message: `${code}: ${identifier}`,
    identifier,
  });
  const windowAt = async (start: number) => {
    const item = await stackTable().getConsistent(errorWindowEntity.key(pk, start));
    return item && errorWindowEntity.parse(item);
  };

  it('counts errors and their samples in one write, so a report never reads a count without its samples', async () => {
    // Given a window no error reached yet
    const store = dynamoErrorWindowStore(meteredStackTable());
    const start = ahead(10);

    // When a batch of errors of two codes is recorded
    const recorded = callScope({ measure: true });
    await withCallScope(recorded, () =>
      store.recordErrors([error('invalid_value', 'a'), error('invalid_value', 'b'), error('no_customer', 'c')], start + 5, windowMillis),
    );

    // Then one UpdateItem wrote the count, the counts per code and every sample
    expect(recorded.calls.map((call) => call.operation)).toEqual(['UpdateItem']);
    const window = await windowAt(start);
    expect(window?.errorCount).toBe(3);
    expect(window?.byCode.map(({ code, count, samples }) => [code, count, samples.map((sample) => sample.identifier)])).toEqual([
      ['invalid_value', 2, ['a', 'b']],
      ['no_customer', 1, ['c']],
    ]);
  });

  it('keeps counting a code whose samples are full, and adds the samples of another code in the same write', async () => {
    const store = dynamoErrorWindowStore(meteredStackTable());
    const start = ahead(11);
    await store.recordErrors(
      Array.from({ length: 6 }, (_, i) => error('invalid_value', `full-${i}`)),
      start,
      windowMillis,
    );

    // When more errors of the full code and a first one of another come
    await store.recordErrors([error('invalid_value', 'late-1'), error('no_customer', 'new-1')], start + 1, windowMillis);

    // Then both are counted (the write that found the samples full was refused whole, and the next one counted
    // without adding to them), and the new code's sample came with its count
    const window = await windowAt(start);
    expect(window?.errorCount).toBe(8);
    expect(window?.byCode.map(({ code, count, samples }) => [code, count, samples.map((sample) => sample.identifier)])).toEqual([
      ['invalid_value', 7, ['full-0', 'full-1', 'full-2', 'full-3', 'full-4']],
      ['no_customer', 1, ['new-1']],
    ]);
  });

  it('counts errors that reach a reported window into the next one, with their samples', async () => {
    const table = stackTable();
    const store = dynamoErrorWindowStore(table);
    const start = ahead(12);
    await store.recordErrors([error('invalid_value', 'first')], start, windowMillis);
    const reported = (await windowAt(start))!;
    await table.transact([{ Update: errorWindowEntity.markReported(table.name, reported, start + windowMillis) }]);

    await store.recordErrors([error('invalid_value', 'after')], start + 10, windowMillis);

    expect((await windowAt(start))?.errorCount).toBe(1);
    const next = await windowAt(start + windowMillis);
    expect(next?.byCode).toEqual([{ code: 'invalid_value', count: 1, samples: [{ message: 'invalid_value: after', identifier: 'after' }] }]);
  });
});
