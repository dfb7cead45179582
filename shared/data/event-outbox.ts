import { destinationSubscriber } from '#shared/event-destinations/event-destination.ts';
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Delivery, FanOut } from '#shared/events/event.ts';
import type { FanOutStore, OutboxStore, SubscriberDirectory } from '#shared/events/ports.ts';
import { endpointSubscriber } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import { cancellationCodes, failedCondition, whenConditionHolds } from './conditions.ts';
import { dueEntry, dueItems } from './due-index.ts';
import { dynamoEventDestinationRepository } from './event-destination-repository.ts';
import { eventRefItem, scopeItem } from './item-schemas.ts';
import { fanOut as fanOutKeys, snapshotEvent as snapshotKeys, thinEvent as thinKeys } from './keys.ts';
import { deliveryItem, fanOutItem, maxTransactionItems, outboxItems } from './outbox-items.ts';
import type { BatchWriteRequests, Table, TransactItem } from './table.ts';
import { dynamoWebhookEndpointRepository } from './webhook-endpoint-repository.ts';

const maxBatchWrite = 25;

const putDelivery =
  (tableName: string) =>
  (delivery: Delivery): TransactItem => ({ Put: { TableName: tableName, Item: deliveryItem(delivery), ConditionExpression: 'attribute_not_exists(PK)' } });

/** A platform's subscribers: its v2 event destinations and v1 webhook endpoints (two partition queries). */
export function dynamoSubscriberDirectory(table: Table): SubscriberDirectory {
  const destinations = dynamoEventDestinationRepository(table);
  const endpoints = dynamoWebhookEndpointRepository(table);
  return {
    async subscribersOf(platform) {
      const [ownDestinations, ownEndpoints] = await Promise.all([destinations.all(platform), endpoints.all(platform)]);
      return [...ownDestinations.map(destinationSubscriber), ...ownEndpoints.map(endpointSubscriber)];
    },
  };
}

/**
 * Writes an outbox that belongs to no other write (a ping) with BatchWriteItem, which DynamoDB serves
 * several times cheaper than a transaction. It is not atomic: if the call fails midway the request
 * answers 500, and what was written is either an event nobody was promised or a delivery whose missing
 * event makes the worker cancel it. Outboxes of a change to an object go in that change's transaction.
 */
export function dynamoOutboxStore(table: Table): OutboxStore {
  return {
    async commit(outbox) {
      // A batch cannot hold a condition: a receipt written here could overwrite another request's record.
      if (outbox.receipt) throw new Error('An Idempotency-Key receipt is written in the transaction of the change it answers, not in a batch');
      const puts = outboxItems(table.name, outbox).map((item) => ({ PutRequest: { Item: item.Put!.Item! } }));
      for (let start = 0; start < puts.length; start += maxBatchWrite) {
        let requests: BatchWriteRequests = puts.slice(start, start + maxBatchWrite);
        for (let round = 0; requests.length > 0; round++) {
          if (round > 8) throw new Error('DynamoDB kept refusing part of an outbox write');
          if (round > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** round));
          requests = await table.batchWrite(requests);
        }
      }
    },
  };
}

const fanOutSchema = z.object({
  id: z.string(),
  platform: scopeItem,
  source: z.string(),
  events: z.array(
    z.object({
      ref: eventRefItem,
      type: z.string(),
      creates: z.string().nullable(),
    }),
  ),
  created: z.number(),
  sweeps: z.number().optional(),
});

/** Fan-out records (TABLE_DESIGN.md 35, 35a, 35b): keys, item schema, and the commands of each access pattern. */
export const fanOutEntity = {
  key: (id: string) => ({ PK: fanOutKeys.pk(id), SK: fanOutKeys.sk() }),
  /** The record as its change's transaction writes it (due for the sweeper from then on). */
  item: fanOutItem,
  parse: (item: Record<string, unknown>): FanOut => fanOutSchema.parse(item),
  /**
   * Fan out once (35a): delete the record if it is still there, put each delivery if absent, link each
   * event with deliveries to them (`ADD deliveryIds`, 47) and add each snapshot event's `pending_webhooks`
   * (added, since a delivery an interrupted run wrote may have settled already). `linked` are all the
   * fan-out's deliveries, also those written ahead (35c). The delete comes first: its failed condition
   * means another worker fanned it out; a delivery's, that an interrupted run wrote it (then 35c).
   */
  complete(tableName: string, fanOut: FanOut, deliveries: Delivery[], pendingWebhooks: Map<string, number>, linked: Delivery[] = deliveries): TransactItem[] {
    const actions: TransactItem[] = [
      { Delete: { TableName: tableName, Key: fanOutEntity.key(fanOut.id), ConditionExpression: 'attribute_exists(PK)' } },
      ...deliveries.map(putDelivery(tableName)),
    ];
    for (const { ref } of fanOut.events) {
      const pending = ref.kind === 'snapshot' ? (pendingWebhooks.get(ref.id) ?? 0) : 0;
      const ids = linked.filter((delivery) => delivery.event.id === ref.id).map((delivery) => delivery.id);
      if (ids.length === 0 && pending === 0) continue;
      const key =
        ref.kind === 'snapshot' ? { PK: snapshotKeys.pk(ref.scope), SK: snapshotKeys.sk(ref.id) } : { PK: thinKeys.pk(ref.scope), SK: thinKeys.sk(ref.id) };
      const adds = [...(pending > 0 ? ['pendingWebhooks :pending'] : []), ...(ids.length > 0 ? ['deliveryIds :ids'] : [])];
      actions.push({
        Update: {
          TableName: tableName,
          Key: key,
          UpdateExpression: `ADD ${adds.join(', ')}`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ...(pending > 0 ? { ':pending': pending } : {}), ...(ids.length > 0 ? { ':ids': new Set(ids) } : {}) },
        },
      });
    }
    return actions;
  },
  /**
   * Deliveries written ahead of their fan-out's completion (35c: too many for one transaction, or some
   * written by an interrupted run): while the record is there, each put if absent (ids are derived from
   * the fan-out, so a rerun finds those already written). At most 99 deliveries.
   */
  writeDeliveries: (tableName: string, fanOut: FanOut, deliveries: Delivery[]): TransactItem[] => [
    { ConditionCheck: { TableName: tableName, Key: fanOutEntity.key(fanOut.id), ConditionExpression: 'attribute_exists(PK)' } },
    ...deliveries.map(putDelivery(tableName)),
  ],
  /** The sweeper's claim (35b): moves the due time, if no other sweep moved it since this one read it. */
  reschedule(tableName: string, fanOut: FanOut, to: number): UpdateCommandInput {
    const due = dueEntry('fan-outs', fanOut.id, to);
    return {
      TableName: tableName,
      Key: fanOutEntity.key(fanOut.id),
      UpdateExpression: 'SET GSI2PK = :gsi2pk, GSI2SK = :gsi2sk ADD sweeps :one',
      ConditionExpression: 'sweeps = :seen',
      ExpressionAttributeValues: { ':gsi2pk': due.GSI2PK, ':gsi2sk': due.GSI2SK, ':one': 1, ':seen': fanOut.sweeps ?? 0 },
    };
  },
  /** Out of the due index for good, the record kept (see docs/operations.md, *Parked work*). */
  park: (tableName: string, id: string): UpdateCommandInput => ({
    TableName: tableName,
    Key: fanOutEntity.key(id),
    UpdateExpression: 'SET parked = :true REMOVE GSI2PK, GSI2SK',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':true': true },
  }),
};

/**
 * Writes a fan-out's deliveries ahead of its completion (35c), at most 99 to a transaction, each put if
 * absent while the record is there. Answers those it wrote, or undefined once the record is gone.
 */
async function writeAhead(table: Table, fanOut: FanOut, deliveries: Delivery[]): Promise<Delivery[] | undefined> {
  const written: Delivery[] = [];
  for (let start = 0; start < deliveries.length; start += maxTransactionItems - 1) {
    let chunk = deliveries.slice(start, start + maxTransactionItems - 1);
    while (chunk.length > 0) {
      try {
        await table.transact(fanOutEntity.writeDeliveries(table.name, fanOut, chunk));
        written.push(...chunk);
        break;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        if (failedCondition(codes[0])) return undefined;
        // Those an interrupted run wrote are due already: the rest again without them.
        const rest = chunk.filter((_, i) => !failedCondition(codes[i + 1]));
        if (rest.length === chunk.length) throw error;
        chunk = rest;
      }
    }
  }
  return written;
}

/**
 * Fan-out records: written in their change's transaction, due for the sweeper from then on, and removed in
 * the transaction that writes their deliveries, so a fan-out happens once.
 */
export function dynamoFanOutStore(table: Table): FanOutStore {
  const { name } = table;
  return {
    async complete(fanOut, deliveries, pendingWebhooks) {
      const actions = fanOutEntity.complete(name, fanOut, deliveries, pendingWebhooks);
      // Nobody subscribes: the record's removal alone, a plain conditional delete at half a transaction's price.
      if (actions.length === 1) return (await whenConditionHolds(() => table.delete(actions[0]!.Delete!))) ? [] : undefined;
      if (actions.length <= maxTransactionItems) {
        try {
          await table.transact(actions);
          return deliveries;
        } catch (error) {
          const codes = cancellationCodes(error);
          if (failedCondition(codes?.[0])) return undefined;
          // Unless some deliveries exist (a run interrupted after writing them ahead), a real failure.
          if (!codes?.some(failedCondition)) throw error;
        }
      }
      // Too many for one transaction, or partly written: the deliveries ahead, then the record's removal
      // with the counts. A crash in between leaves the record due, and its rerun skips what exists.
      const written = await writeAhead(table, fanOut, deliveries);
      if (!written) return undefined;
      try {
        await table.transact(fanOutEntity.complete(name, fanOut, [], pendingWebhooks, deliveries));
        return written;
      } catch (error) {
        if (failedCondition(cancellationCodes(error)?.[0])) return undefined;
        throw error;
      }
    },

    async overdue(dueBy, limit) {
      return (await dueItems(table, 'fan-outs', dueBy, limit)).map(fanOutEntity.parse);
    },

    reschedule: (fanOut, to) => whenConditionHolds(() => table.update(fanOutEntity.reschedule(name, fanOut, to))),

    async park(fanOut) {
      await whenConditionHolds(() => table.update(fanOutEntity.park(name, fanOut.id)));
    },
  };
}
