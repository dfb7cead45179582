import * as z from 'zod';
import type { DeliveryStore, DeliveryUpdate } from '#shared/delivery/delivery-store.ts';
import type { Delivery } from '#shared/events/event.ts';
import { eventRefItem, scopeItem } from './item-schemas.ts';
import type { Table, TransactItem } from './table.ts';

/** An update that goes alone or into a transaction. */
type Update = NonNullable<TransactItem['Update']>;
import { cancellationCodes, isConditionFailure, whenConditionHolds } from './conditions.ts';
import { delivery as deliveryKeys, snapshotEvent as snapshotKeys } from './keys.ts';
import { dueEntry, dueItems } from './due-index.ts';
import { deliveryItem } from './outbox-items.ts';

const deliverySchema = z.object({
  id: z.string(),
  event: eventRefItem,
  destination: z.object({ kind: z.enum(['event_destination', 'webhook_endpoint']), scope: scopeItem, id: z.string(), version: z.number().optional() }),
  explicit: z.boolean().default(false),
  status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
  attempts: z.array(
    z.object({ at: z.number(), outcome: z.enum(['delivered', 'failed']), status: z.number().nullable(), durationMs: z.number(), error: z.string().nullable() }),
  ),
  nextAttemptAt: z.number().nullable(),
  created: z.number(),
  sweeps: z.number().optional(),
});

/** Deliveries (TABLE_DESIGN.md 40–42): keys, item, the item schema every read parses, and the update of each access pattern. */
export const deliveryEntity = {
  key: (id: string) => ({ PK: deliveryKeys.pk(id), SK: deliveryKeys.sk() }),
  item: deliveryItem,
  parse: (item: Record<string, unknown>): Delivery => deliverySchema.parse(item),
  /**
   * An attempt recorded (41), if the delivery is still pending with the attempts this worker saw: the
   * status and next attempt set, the attempt appended, its due entry moved (pending) or removed.
   */
  recordAttempt(tableName: string, delivery: Delivery, update: DeliveryUpdate): Update {
    const due = update.status === 'pending' && update.nextAttemptAt !== null ? dueEntry('deliveries', delivery.id, update.nextAttemptAt) : undefined;
    return {
      TableName: tableName,
      Key: deliveryEntity.key(delivery.id),
      UpdateExpression: `SET #status = :status, nextAttemptAt = :next, attempts = list_append(attempts, :attempt), sweeps = :zero${
        due ? ', GSI2PK = :gsi2pk, GSI2SK = :gsi2sk' : ' REMOVE GSI2PK, GSI2SK'
      }`,
      ConditionExpression: '#status = :pending AND size(attempts) = :seen',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': update.status,
        ':next': update.nextAttemptAt,
        ':pending': 'pending',
        ':seen': delivery.attempts.length,
        ':zero': 0,
        ':attempt': update.attempt ? [update.attempt] : [],
        ...(due ? { ':gsi2pk': due.GSI2PK, ':gsi2sk': due.GSI2SK } : {}),
      },
    };
  },
  /** A finished delivery's snapshot event settled (41): one webhook less pending, one more failed if it gave up. */
  settle: (tableName: string, delivery: Delivery, failed: boolean): Update => ({
    TableName: tableName,
    Key: { PK: snapshotKeys.pk(delivery.event.scope), SK: snapshotKeys.sk(delivery.event.id) },
    UpdateExpression: 'ADD pendingWebhooks :minusOne, failedWebhooks :failed',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':minusOne': -1, ':failed': failed ? 1 : 0 },
  }),
  /** The sweeper's claim (42): the next attempt moved, if no worker or sweep moved it since this one read it. */
  reschedule(tableName: string, delivery: Delivery, to: number): Update {
    const due = dueEntry('deliveries', delivery.id, to);
    return {
      TableName: tableName,
      Key: deliveryEntity.key(delivery.id),
      UpdateExpression: 'SET nextAttemptAt = :to, GSI2PK = :gsi2pk, GSI2SK = :gsi2sk ADD sweeps :one',
      ConditionExpression: '#status = :pending AND nextAttemptAt = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':to': to, ':from': delivery.nextAttemptAt, ':pending': 'pending', ':gsi2pk': due.GSI2PK, ':gsi2sk': due.GSI2SK, ':one': 1 },
    };
  },
};
const toDelivery = deliveryEntity.parse;

/** DynamoDB adapter for deliveries; pending ones are visible to the sweeper through the sparse GSI2. */
export function dynamoDeliveryStore(table: Table): DeliveryStore {
  const { name } = table;
  const { key } = deliveryEntity;
  return {
    async get(id) {
      const Item = await table.get(key(id));
      return Item ? toDelivery(Item) : undefined;
    },

    async update(delivery, update) {
      const updateDelivery = deliveryEntity.recordAttempt(name, delivery, update);
      try {
        if (!update.settleSnapshotEvent || delivery.event.kind !== 'snapshot') {
          await table.update(updateDelivery);
          return true;
        }
        await table.transact([{ Update: updateDelivery }, { Update: deliveryEntity.settle(name, delivery, update.settleSnapshotEvent.failed) }]);
        return true;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (codes?.[0] === 'ConditionalCheckFailed' || isConditionFailure(error)) return false;
        // The event expired meanwhile: finish the delivery without settling a counter that is gone.
        if (codes?.[1] === 'ConditionalCheckFailed') return this.update(delivery, { ...update, settleSnapshotEvent: null });
        throw error;
      }
    },

    async overdue(dueBy, limit) {
      return (await dueItems(table, 'deliveries', dueBy, limit)).map(toDelivery).sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0));
    },

    reschedule: (delivery, to) => whenConditionHolds(() => table.update(deliveryEntity.reschedule(name, delivery, to))),
  };
}
