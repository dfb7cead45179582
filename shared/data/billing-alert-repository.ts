import * as z from 'zod';
import type { AlertTrigger, BillingAlert, BillingAlertRepository } from '#shared/billing-alerts/alert.ts';
import type { Scope } from '#shared/platform/types.ts';
import { allDueItems, dueEntry } from './due-index.ts';
import { orNull, ownedItem } from './item-schemas.ts';
import { billingAlert as keys, counter } from './keys.ts';
import { ownedEntity, ownedListQuery } from './owned-resources.ts';
import { queryOwnerPage } from './owner-page.ts';
import type { Table, TransactItem } from './table.ts';
import { transactChecked, transactGuarded } from './transactions.ts';

const alertSchema = z.object({
  ...ownedItem,
  platformId: z.string(),
  created: z.number(),
  title: z.string(),
  status: z.enum(['active', 'inactive', 'archived']),
  usageThreshold: z.object({
    meterId: z.string(),
    formula: z.enum(['count', 'last', 'sum']),
    gte: z.number(),
    customerId: z.string(),
    recurrence: z.literal('one_time'),
  }),
  triggeredAt: orNull(z.number()),
});
const parseAlert = (item: Record<string, unknown>): BillingAlert => alertSchema.parse(item);

/** Waiting for its threshold: active and never fired. Only these are in the evaluator's index. */
const isPending = (alert: BillingAlert) => alert.status === 'active' && alert.triggeredAt === null;

const kind = {
  entity: 'billing_alert',
  keys,
  parse: parseAlert,
  idPrefix: 'alrt',
  // `archived` marks what lists skip (the reference removes archived alerts from the list).
  indexKeys: (alert: BillingAlert): Record<string, string> => ({
    ...(isPending(alert) ? dueEntry('billing-alerts', alert.id, alert.created) : {}),
    ...(alert.status === 'archived' ? { archived: 'true' } : {}),
  }),
  unlisted: 'archived',
};

/**
 * A billing alert's access patterns as pure builders (TABLE_DESIGN.md, billing alerts): the alert is an owned
 * kind whose create and archive move the cap counter of its meter and customer; a firing is one transaction of
 * the trigger record (put if absent) and the alert leaving the pending index (on its version, while active).
 */
export const billingAlertEntity = (() => {
  const owned = ownedEntity<BillingAlert>(kind);
  const capCounter = (tableName: string, alert: BillingAlert, delta: number, limit?: number): TransactItem => ({
    Update: {
      TableName: tableName,
      Key: { PK: counter.pk(alert.scope), SK: counter.sk(keys.counterName(alert.usageThreshold.meterId, alert.usageThreshold.customerId)) },
      UpdateExpression: 'ADD #count :delta',
      ...(limit !== undefined ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit' } : {}),
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':delta': delta, ...(limit !== undefined ? { ':limit': limit } : {}) },
    },
  });
  return {
    key: owned.key,
    item: owned.item,
    triggerKey: (scope: Scope, alertId: string, customerId: string) => ({ PK: keys.pk(scope), SK: keys.triggerSk(alertId, customerId) }),
    /** The cap counter first: its failed condition is how a full meter and customer shows up. */
    create: (tableName: string, alert: BillingAlert, limit: number): TransactItem[] => [
      capCounter(tableName, alert, 1, limit),
      ...owned.create(tableName, alert),
    ],
    /** On the version read; archiving frees the alert's place under the cap. */
    replace: (tableName: string, next: BillingAlert, before: BillingAlert['status']): TransactItem[] => [
      ...owned.replace(tableName, next),
      ...(next.status === 'archived' && before !== 'archived' ? [capCounter(tableName, next, -1)] : []),
    ],
    trigger: (tableName: string, alert: BillingAlert, trigger: AlertTrigger): TransactItem[] => [
      {
        Put: {
          TableName: tableName,
          Item: {
            ...billingAlertEntity.triggerKey(alert.scope, alert.id, trigger.customerId),
            entity: 'billing_alert_trigger',
            scope: alert.scope,
            ...trigger,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Update: {
          TableName: tableName,
          Key: owned.key(alert.scope, alert.id),
          UpdateExpression: 'SET triggeredAt = :at, version = :next REMOVE GSI2PK, GSI2SK',
          ConditionExpression: '#status = :active AND version = :read',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':at': trigger.at, ':next': alert.version + 1, ':active': 'active', ':read': alert.version },
        },
      },
    ],
  };
})();

/** DynamoDB adapter of billing alerts. */
export function dynamoBillingAlertRepository(table: Table): BillingAlertRepository {
  const { name } = table;
  return {
    create: (alert, limit) => transactGuarded(table, billingAlertEntity.create(name, alert, limit), undefined),
    async get(scope, id) {
      const item = await table.get(billingAlertEntity.key(scope, id));
      return item ? parseAlert(item) : undefined;
    },
    replace: (next, before) => transactGuarded(table, billingAlertEntity.replace(name, next, before.status), undefined),
    async list(scope, page, meterId) {
      const where = meterId === undefined ? undefined : { 'usageThreshold.meterId': meterId };
      const result = await queryOwnerPage(table, ownedListQuery(kind, scope, page, where));
      return { items: result.items.map(parseAlert), hasMore: result.hasMore };
    },
    async *pending() {
      for await (const items of allDueItems(table, 'billing-alerts', table.clock())) yield items.map(parseAlert);
    },
    // Both actions are conditions on what the evaluator read; a transaction that collided with another (racing
    // evaluators, an API change) is not fired either: the alert is still pending if it must be, and the next run sees.
    trigger: (alert, trigger, outbox) => transactChecked(table, billingAlertEntity.trigger(name, alert, trigger), outbox),
  };
}
