import type { DueEntry, DueIndex } from '#shared/billing/due-runner.ts';
import type { Scope } from '#shared/platform/types.ts';
import { dueItems } from './due-index.ts';
import { scopeItem } from './item-schemas.ts';
import { billingDue } from './keys.ts';
import type { Item, ItemKey, Table } from './table.ts';

/** The due time in a billing object's GSI2 sort key (`<at, 15 digits>#<kind>#<id>`), with its kind and id. */
function parseSortKey(sortKey: string): { at: number; kind: string; id: string } {
  const [at, kind, ...id] = sortKey.split('#');
  return { at: Number(at), kind: kind!, id: id.join('#') };
}

/**
 * The due index of billing objects on DynamoDB (access patterns 53, 53a, 53b): the stack's sharded
 * `BILLING_DUE#` queue, a test clock's `TEST_CLOCK_DUE#` partition, and the object's own item for a
 * strongly consistent look at when it is due now.
 */
export function dynamoBillingDueIndex(table: Table): DueIndex {
  const keyOf = new WeakMap<DueEntry, ItemKey>();
  const entryOf = (item: Item): DueEntry => {
    const entry = { scope: scopeItem.parse(item.scope), ...parseSortKey(String(item.GSI2SK)) };
    keyOf.set(entry, { PK: String(item.PK), SK: String(item.SK) });
    return entry;
  };
  return {
    async stackDue(by, limit) {
      return (await dueItems(table, 'billing', by, limit)).map(entryOf);
    },
    async earliestOnClock(scope: Scope, clockId: string, by: number) {
      const page = await table.query(billingDueQueries.earliestOnClock(table.name, scope, clockId, by));
      return page.items[0] && entryOf(page.items[0]);
    },
    async dueNow(entry) {
      const key = keyOf.get(entry);
      if (!key) throw new Error('dueNow takes an entry this index returned');
      const item = await table.getConsistent(key);
      return item?.GSI2SK === undefined ? null : parseSortKey(String(item.GSI2SK)).at;
    },
  };
}

/**
 * 53c: the items of one kind due on a test clock, whatever their time: the partition holds only that
 * clock's objects (GSI2 projects every attribute), so an advance's limit reads its live subscriptions here
 * rather than the account's subscriptions per customer.
 */
export async function dueOnClock(table: Table, scope: Scope, clockId: string, entity: string): Promise<Item[]> {
  const found: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await table.query({ ...billingDueQueries.allOnClock(table.name, scope, clockId, entity), ExclusiveStartKey: start });
    found.push(...page.items);
    start = page.lastKey;
  } while (start);
  return found;
}

/** The commands of the billing due index's patterns, built offline (test/unit/data/entities.test.ts). */
export const billingDueQueries = {
  /** 53c: every entry of a clock's partition of one entity (subscription, invoice). */
  allOnClock: (tableName: string, scope: Scope, clockId: string, entity: string) => ({
    TableName: tableName,
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    FilterExpression: 'entity = :entity',
    ExpressionAttributeValues: { ':pk': billingDue.clockGsi2pk(scope, clockId), ':entity': entity },
  }),
  /** 53a: the earliest entry of a clock's partition due by `by` (one item, ascending). */
  earliestOnClock: (tableName: string, scope: Scope, clockId: string, by: number) => ({
    TableName: tableName,
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :by',
    ExpressionAttributeValues: { ':pk': billingDue.clockGsi2pk(scope, clockId), ':by': `${billingDue.gsi2sk(by, '~', '')}` },
    Limit: 1,
  }),
};
