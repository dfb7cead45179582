import * as z from 'zod';
import type { Customer } from '#shared/customers/customer.ts';
import type { TestClock, TestClockRepository } from '#shared/test-clocks/test-clock.ts';
import { cancellationCodes, failedCondition } from './conditions.ts';
import { customerSourceEntity } from './customer-repository.ts';
import { billingDueEntry } from './due-index.ts';
import { orNull, ownedItem } from './item-schemas.ts';
import { testClock as keys } from './keys.ts';
import { type OwnedKind, ownedEntity, ownedResourceStore } from './owned-resources.ts';
import type { Table, TransactItem } from './table.ts';
import { transactGuarded, transactWithOutbox } from './transactions.ts';

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
  /**
   * A new clock with an existing customer on it (52b): the cap counter first (its failed condition is a full
   * owner), the clock if absent, the customer on its version read, now with its `testClock`.
   */
  createWithCustomer: (tableName: string, clock: TestClock, customer: Customer, limit: number): TransactItem[] => [
    ...clocks.create(tableName, clock, limit),
    ...customerSourceEntity.customers.replace(tableName, customer),
  ],
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
};

export function dynamoTestClockRepository(table: Table): TestClockRepository {
  const { delete: _delete, ...store } = ownedResourceStore<TestClock>(table, testClockKind);
  return {
    ...store,
    delete: (clock, outbox) => transactGuarded(table, testClockEntity.deleteAt(table.name, clock), outbox),
    async createWithCustomer(clock, customer, limit, outbox) {
      try {
        await transactWithOutbox(table, outbox, testClockEntity.createWithCustomer(table.name, clock, customer, limit));
        return 'written';
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        if (failedCondition(codes[0])) return 'limit';
        if (codes.some((code) => failedCondition(code) || code === 'TransactionConflict')) return 'conflict';
        throw error;
      }
    },
  };
}
