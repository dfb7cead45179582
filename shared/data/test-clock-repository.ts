import * as z from 'zod';
import type { Scope } from '#shared/platform/types.ts';
import type { TestClock, TestClockRepository } from '#shared/test-clocks/test-clock.ts';
import { billingDueEntry } from './due-index.ts';
import { orNull, ownedItem } from './item-schemas.ts';
import { testClock as keys } from './keys.ts';
import { type OwnedKind, ownedEntity, ownedResourceStore } from './owned-resources.ts';
import type { Table, TransactItem } from './table.ts';
import { transactGuarded } from './transactions.ts';

const testClockItem = z.object({
  ...ownedItem,
  created: z.number(),
  deletesAfter: z.number(),
  frozenTime: z.number(),
  name: orNull(z.string()),
  status: z.enum(['ready', 'advancing', 'internal_failure']),
  targetFrozenTime: orNull(z.number()),
  failedRuns: z
    .number()
    .optional()
    .transform((runs) => runs ?? 0),
  customers: z.array(z.string()),
  due: z.object({ at: orNull(z.number()), testClock: orNull(z.string()) }),
  platformId: z.string(),
  apiVersion: z.string(),
});

/**
 * Test clocks (TABLE_DESIGN.md, test clock rows): owned and capped (`COUNTER#test_clocks`); every write puts
 * the clock in the stack's billing queue at its `due` (the advance's start while advancing, else
 * `deletes_after`), so the sweeper resumes a crashed advance and deletes an expired clock.
 */
const testClockKind: OwnedKind<TestClock> = {
  entity: 'test_clock',
  keys,
  counterName: 'test_clocks',
  idPrefix: 'clock',
  parse: (item) => testClockItem.parse(item),
  indexKeys: (clock) => billingDueEntry(clock.scope, 'test_clock', clock.id, clock.due),
};

const clocks = ownedEntity<TestClock>(testClockKind);

export const testClockEntity = {
  ...clocks,
  /** Deletes the clock on the version read (and steps the owner's counter down). */
  deleteAt: (tableName: string, clock: TestClock): TransactItem[] => [
    {
      Delete: {
        TableName: tableName,
        Key: clocks.key(clock.scope, clock.id),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': clock.version },
      },
    },
    ...clocks.delete(tableName, clock.scope, clock.id).slice(1),
  ],
  /**
   * What a customer's create or delete writes on its clock, in the customer's transaction: the clock's
   * customer list, on the version read (so the per-clock cap and the clock's delete see every customer), only
   * while the clock is not advancing.
   */
  setCustomers: (tableName: string, scope: Scope, clockId: string, readVersion: number, customers: string[]): TransactItem => ({
    Update: {
      TableName: tableName,
      Key: clocks.key(scope, clockId),
      UpdateExpression: 'SET customers = :customers, version = :next',
      ConditionExpression: 'version = :version AND #status <> :advancing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':customers': customers, ':next': readVersion + 1, ':version': readVersion, ':advancing': 'advancing' },
    },
  }),
};

export function dynamoTestClockRepository(table: Table): TestClockRepository {
  const { delete: _delete, ...store } = ownedResourceStore<TestClock>(table, testClockKind);
  return {
    ...store,
    delete: (clock, outbox) => transactGuarded(table, testClockEntity.deleteAt(table.name, clock), outbox),
  };
}
