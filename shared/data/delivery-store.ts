import * as z from 'zod';
import type { DeliveryStore } from '#shared/delivery/delivery-store.ts';
import type { Delivery } from '#shared/events/event.ts';
import { scopeItem } from './item-schemas.ts';
import type { Table } from './table.ts';
import { cancellationCodes, isConditionFailure, whenConditionHolds } from './conditions.ts';
import { delivery as deliveryKeys, snapshotEvent as snapshotKeys } from './keys.ts';
import { dueEntry, dueItems } from './due-index.ts';
import { deliveryItem } from './outbox-items.ts';

const deliverySchema = z.object({
  id: z.string(),
  event: z.object({ kind: z.enum(['thin', 'snapshot']), scope: scopeItem, id: z.string() }),
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

/** Deliveries (TABLE_DESIGN.md 40–42): keys, item, and the item schema every read parses. */
export const deliveryEntity = {
  key: (id: string) => ({ PK: deliveryKeys.pk(id), SK: deliveryKeys.sk() }),
  item: deliveryItem,
  parse: (item: Record<string, unknown>): Delivery => deliverySchema.parse(item),
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
      const pending = update.status === 'pending' && update.nextAttemptAt !== null;
      const due = pending ? dueEntry('deliveries', delivery.id, update.nextAttemptAt!) : undefined;
      const values: Record<string, unknown> = {
        ':status': update.status,
        ':next': update.nextAttemptAt,
        ':pending': 'pending',
        ':seen': delivery.attempts.length,
        ':zero': 0,
        ':attempt': update.attempt ? [update.attempt] : [],
        ...(due ? { ':gsi2pk': due.GSI2PK, ':gsi2sk': due.GSI2SK } : {}),
      };
      const updateDelivery = {
        TableName: name,
        Key: key(delivery.id),
        UpdateExpression: `SET #status = :status, nextAttemptAt = :next, attempts = list_append(attempts, :attempt), sweeps = :zero${
          due ? ', GSI2PK = :gsi2pk, GSI2SK = :gsi2sk' : ' REMOVE GSI2PK, GSI2SK'
        }`,
        ConditionExpression: '#status = :pending AND size(attempts) = :seen',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      };
      try {
        if (!update.settleSnapshotEvent || delivery.event.kind !== 'snapshot') {
          await table.update(updateDelivery);
          return true;
        }
        await table.transact([
          { Update: updateDelivery },
          {
            Update: {
              TableName: name,
              Key: { PK: snapshotKeys.pk(delivery.event.scope), SK: snapshotKeys.sk(delivery.event.id) },
              UpdateExpression: 'ADD pendingWebhooks :minusOne, failedWebhooks :failed',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':minusOne': -1, ':failed': update.settleSnapshotEvent.failed ? 1 : 0 },
            },
          },
        ]);
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

    async reschedule(delivery, to) {
      const due = dueEntry('deliveries', delivery.id, to);
      return whenConditionHolds(() =>
        table.update({
          TableName: name,
          Key: key(delivery.id),
          UpdateExpression: 'SET nextAttemptAt = :to, GSI2PK = :gsi2pk, GSI2SK = :gsi2sk ADD sweeps :one',
          ConditionExpression: '#status = :pending AND nextAttemptAt = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':to': to,
            ':from': delivery.nextAttemptAt,
            ':pending': 'pending',
            ':gsi2pk': due.GSI2PK,
            ':gsi2sk': due.GSI2SK,
            ':one': 1,
          },
        }),
      );
    },
  };
}
