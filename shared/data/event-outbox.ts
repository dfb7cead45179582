import { destinationSubscriber } from '#shared/event-destinations/event-destination.ts';
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Delivery, FanOut } from '#shared/events/event.ts';
import type { FanOutStore, OutboxStore, SubscriberDirectory } from '#shared/events/ports.ts';
import { endpointSubscriber } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import { cancellationCodes, failedCondition, whenConditionHolds } from './conditions.ts';
import { dueEntry, dueItems } from './due-index.ts';
import { dynamoEventDestinationRepository } from './event-destination-repository.ts';
import { scopeItem } from './item-schemas.ts';
import { fanOut as fanOutKeys, snapshotEvent as snapshotKeys } from './keys.ts';
import { deliveryItem, fanOutItem, maxTransactionItems, outboxItems } from './outbox-items.ts';
import type { BatchWriteRequests, Table, TransactItem } from './table.ts';
import { dynamoWebhookEndpointRepository } from './webhook-endpoint-repository.ts';

const maxBatchWrite = 25;

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
      ref: z.object({ kind: z.enum(['thin', 'snapshot']), scope: scopeItem, id: z.string() }),
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
   * Fan out once (35a): delete the record if it is still there, put each delivery, set each snapshot
   * event's `pending_webhooks` (those with deliveries). The delete comes first: its failed condition means
   * another worker fanned it out.
   */
  complete(tableName: string, fanOut: FanOut, deliveries: Delivery[], pendingWebhooks: Map<string, number>): TransactItem[] {
    const actions: TransactItem[] = [
      { Delete: { TableName: tableName, Key: fanOutEntity.key(fanOut.id), ConditionExpression: 'attribute_exists(PK)' } },
      ...deliveries.map((delivery): TransactItem => ({ Put: { TableName: tableName, Item: deliveryItem(delivery) } })),
    ];
    for (const { ref } of fanOut.events) {
      const pending = pendingWebhooks.get(ref.id) ?? 0;
      if (ref.kind !== 'snapshot' || pending === 0) continue;
      actions.push({
        Update: {
          TableName: tableName,
          Key: { PK: snapshotKeys.pk(ref.scope), SK: snapshotKeys.sk(ref.id) },
          UpdateExpression: 'SET pendingWebhooks = :pending',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':pending': pending },
        },
      });
    }
    return actions;
  },
  /**
   * The deliveries of a fan-out too large for one transaction (35c), written ahead of its completion: puts
   * if absent (their ids are derived from the fan-out, so a rerun finds those already written).
   */
  writeDeliveries: (tableName: string, deliveries: Delivery[]): TransactItem[] =>
    deliveries.map((delivery) => ({ Put: { TableName: tableName, Item: deliveryItem(delivery), ConditionExpression: 'attribute_not_exists(PK)' } })),
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

/** Runs a transaction of puts if absent, again without those that found their item there, until none is left. */
async function putAbsent(table: Table, puts: TransactItem[]): Promise<void> {
  for (let remaining = puts; remaining.length > 0; ) {
    try {
      await table.transact(remaining);
      return;
    } catch (error) {
      const codes = cancellationCodes(error);
      const rest = codes ? remaining.filter((_, i) => !failedCondition(codes[i])) : remaining;
      if (rest.length === remaining.length) throw error;
      remaining = rest;
    }
  }
}

/**
 * Fan-out records: written in their change's transaction, due for the sweeper from then on, and removed in
 * the transaction that writes their deliveries, so a fan-out happens once.
 */
export function dynamoFanOutStore(table: Table): FanOutStore {
  const { name } = table;
  return {
    async complete(fanOut, deliveries, pendingWebhooks) {
      let actions = fanOutEntity.complete(name, fanOut, deliveries, pendingWebhooks);
      // Nobody subscribes: the record's removal alone, a plain conditional delete at half a transaction's price.
      if (actions.length === 1) return whenConditionHolds(() => table.delete(actions[0]!.Delete!));
      if (actions.length > maxTransactionItems) {
        // More than one transaction holds: the deliveries first, a transaction at a time, then the record's
        // removal with the counts. A crash in between leaves the record due; its rerun skips what exists.
        for (let start = 0; start < deliveries.length; start += maxTransactionItems) {
          await putAbsent(table, fanOutEntity.writeDeliveries(name, deliveries.slice(start, start + maxTransactionItems)));
        }
        actions = fanOutEntity.complete(name, fanOut, [], pendingWebhooks);
      }
      try {
        await table.transact(actions);
        return true;
      } catch (error) {
        if (failedCondition(cancellationCodes(error)?.[0])) return false;
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
