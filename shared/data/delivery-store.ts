import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { DeliveryStore, DeliveryUpdate } from '#shared/delivery/delivery-store.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { eventRetentionMillis, maxDeliveriesPerEvent, type Delivery, type DeliveryStatus } from '#shared/events/event.ts';
import type { Scope } from '#shared/platform/types.ts';
import { eventRefItem, scopeItem } from './item-schemas.ts';
import type { Table, TransactItem } from './table.ts';

/** An update that goes alone or into a transaction. */
type Update = NonNullable<TransactItem['Update']>;
import { cancellationCodes, isConditionFailure, whenConditionHolds } from './conditions.ts';
import { delivery as deliveryKeys, snapshotEvent as snapshotKeys, thinEvent as thinKeys } from './keys.ts';
import { dueEntry, dueItems } from './due-index.ts';
import { collect } from './owner-page.ts';
import { deliveryItem, deliveryListEntry } from './outbox-items.ts';

const statuses = ['pending', 'delivered', 'failed', 'cancelled'] as const;

/** A list position as `listByDestination` hands it out: the GSI1 sort key of a page's last delivery. */
const listPosition = new RegExp(`^(${statuses.join('|')})#\\d{15}#(dlv_[A-Za-z0-9]{1,64})$`);

const deliverySchema = z.object({
  id: z.string(),
  event: eventRefItem,
  destination: z.object({ kind: z.enum(['event_destination', 'webhook_endpoint']), scope: scopeItem, id: z.string(), version: z.number().optional() }),
  explicit: z.boolean().default(false),
  resend: z.boolean().optional(),
  eventType: z.string().optional(),
  status: z.enum(statuses),
  cancelReason: z.enum(['destination_deleted', 'destination_disabled', 'destination_has_no_target', 'event_expired']).optional(),
  attempts: z.array(
    z.object({
      at: z.number(),
      outcome: z.enum(['delivered', 'failed']),
      status: z.number().nullable(),
      durationMs: z.number(),
      error: z.string().nullable(),
      responseExcerpt: z.string().nullable().optional(),
    }),
  ),
  nextAttemptAt: z.number().nullable(),
  created: z.number(),
  sweeps: z.number().optional(),
});

/** The key of the thin or snapshot event a delivery carries. */
const eventKey = ({ event }: Delivery) =>
  event.kind === 'thin' ? { PK: thinKeys.pk(event.scope), SK: thinKeys.sk(event.id) } : { PK: snapshotKeys.pk(event.scope), SK: snapshotKeys.sk(event.id) };

/** Deliveries (TABLE_DESIGN.md 40–42, 47–49): keys, item, the item schema every read parses, and the update of each access pattern. */
export const deliveryEntity = {
  key: (id: string) => ({ PK: deliveryKeys.pk(id), SK: deliveryKeys.sk() }),
  item: deliveryItem,
  parse: (item: Record<string, unknown>): Delivery => deliverySchema.parse(item),
  /**
   * An attempt recorded (41), if the delivery is still pending with the attempts this worker saw: the
   * status and next attempt set, the attempt appended, its due entry moved (pending) or removed, its place in
   * its destination's list (48) moved to the new status.
   */
  recordAttempt(tableName: string, delivery: Delivery, update: DeliveryUpdate): Update {
    const due = update.status === 'pending' && update.nextAttemptAt !== null ? dueEntry('deliveries', delivery.id, update.nextAttemptAt) : undefined;
    const listed = deliveryListEntry(delivery, update.status);
    const reason = update.status === 'cancelled' && update.cancelReason ? update.cancelReason : undefined;
    return {
      TableName: tableName,
      Key: deliveryEntity.key(delivery.id),
      UpdateExpression: `SET #status = :status, nextAttemptAt = :next, attempts = list_append(attempts, :attempt), sweeps = :zero, GSI1PK = :gsi1pk, GSI1SK = :gsi1sk${
        reason ? ', cancelReason = :reason' : ''
      }${due ? ', GSI2PK = :gsi2pk, GSI2SK = :gsi2sk' : ' REMOVE GSI2PK, GSI2SK'}`,
      ConditionExpression: '#status = :pending AND size(attempts) = :seen',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': update.status,
        ':next': update.nextAttemptAt,
        ':pending': 'pending',
        ':seen': delivery.attempts.length,
        ':zero': 0,
        ':attempt': update.attempt ? [update.attempt] : [],
        ':gsi1pk': listed.GSI1PK,
        ':gsi1sk': listed.GSI1SK,
        ...(reason ? { ':reason': reason } : {}),
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
  /**
   * One page of a destination's deliveries (48): its GSI1 partition backwards (newest first within a status;
   * statuses pending, failed, delivered, cancelled), within `status` when given, after `after` (a position
   * from {@link deliveryEntity.positionOf}). A malformed position is a 400.
   */
  listByDestination(tableName: string, destination: { scope: Scope; id: string }, query: { status?: DeliveryStatus; after?: string }): QueryCommandInput {
    const pk = deliveryKeys.gsi1pk(destination.scope, destination.id);
    const after = query.after === undefined ? undefined : listPosition.exec(query.after);
    if (query.after !== undefined && (!after || (query.status !== undefined && after[1] !== query.status))) {
      throw new InvalidRequestError('The page token is invalid or has been tampered with.', 'invalid_page_token', 'page');
    }
    return {
      TableName: tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: `GSI1PK = :pk${query.status ? ' AND begins_with(GSI1SK, :status)' : ''}`,
      ExpressionAttributeValues: { ':pk': pk, ...(query.status ? { ':status': deliveryKeys.gsi1skPrefix(query.status) } : {}) },
      ScanIndexForward: false,
      ExclusiveStartKey: after ? { GSI1PK: pk, GSI1SK: query.after, ...deliveryEntity.key(after[2]!) } : undefined,
    };
  },
  /** Where a list continues after this delivery. */
  positionOf: (delivery: Delivery): string => deliveryListEntry(delivery, delivery.status).GSI1SK,
  /**
   * A resend (49): the delivery put, and linked to its event (`ADD deliveryIds`, and for a snapshot event
   * `ADD pendingWebhooks 1`, settled when it finishes) if the event is still there with fewer than
   * {@link maxDeliveriesPerEvent} deliveries.
   */
  createResend: (tableName: string, delivery: Delivery): TransactItem[] => [
    {
      Update: {
        TableName: tableName,
        Key: eventKey(delivery),
        UpdateExpression: `ADD deliveryIds :id${delivery.event.kind === 'snapshot' ? ', pendingWebhooks :one' : ''}`,
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(deliveryIds) OR size(deliveryIds) < :max)',
        ExpressionAttributeValues: {
          ':id': new Set([delivery.id]),
          ':max': maxDeliveriesPerEvent,
          ...(delivery.event.kind === 'snapshot' ? { ':one': 1 } : {}),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    { Put: { TableName: tableName, Item: deliveryItem(delivery), ConditionExpression: 'attribute_not_exists(PK)' } },
  ],
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

    async getMany(ids) {
      // Gets issued in one turn go out as one BatchGetItem (Table.get).
      const items = await Promise.all(ids.map((id) => table.get(key(id))));
      return items.filter((item) => item !== undefined).map(toDelivery);
    },

    async listByDestination(destination, query) {
      const page = await collect(table, deliveryEntity.listByDestination(name, destination, query), query.limit);
      const items = page.items.map(toDelivery);
      const next = page.hasMore ? deliveryEntity.positionOf(items.at(-1)!) : undefined;
      // Past its 30 days a delivery is gone, whenever TTL removes it (a page at that edge may come up short).
      const now = table.clock();
      return { items: items.filter((delivery) => delivery.created + eventRetentionMillis > now), hasMore: page.hasMore, next };
    },

    async createResend(delivery) {
      try {
        await table.transact(deliveryEntity.createResend(name, delivery));
        return 'created';
      } catch (error) {
        const failure = (error as { CancellationReasons?: Array<{ Code?: string; Item?: Record<string, unknown> }> }).CancellationReasons?.[0];
        if (failure?.Code !== 'ConditionalCheckFailed') throw error;
        return failure.Item ? 'too_many' : 'event_missing';
      }
    },
  };
}
