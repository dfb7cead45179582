import { destinationSubscriber } from '#shared/event-destinations/event-destination.ts';
import type { FanOut } from '#shared/events/event.ts';
import type { FanOutStore, OutboxStore, SubscriberDirectory } from '#shared/events/ports.ts';
import { endpointSubscriber } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import { cancellationCodes, failedCondition, whenConditionHolds } from './conditions.ts';
import { dueEntry, dueItems } from './due-index.ts';
import { dynamoEventDestinationRepository } from './event-destination-repository.ts';
import { recordOf } from './item-schemas.ts';
import { fanOut as fanOutKeys, snapshotEvent as snapshotKeys } from './keys.ts';
import { deliveryItem, maxTransactionItems, outboxItems } from './outbox-items.ts';
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

const toFanOut = (item: Record<string, unknown>) => recordOf<FanOut>(item);

/**
 * Fan-out records (TABLE_DESIGN.md, 9): written in their change's transaction, due for the sweeper from
 * then on, and removed in the transaction that writes their deliveries, so a fan-out happens once.
 */
export function dynamoFanOutStore(table: Table): FanOutStore {
  const { name } = table;
  const key = (id: string) => ({ PK: fanOutKeys.pk(id), SK: fanOutKeys.sk() });
  return {
    async complete(fanOut, deliveries, pendingWebhooks) {
      const actions: TransactItem[] = [
        { Delete: { TableName: name, Key: key(fanOut.id), ConditionExpression: 'attribute_exists(PK)' } },
        ...deliveries.map((delivery): TransactItem => ({ Put: { TableName: name, Item: deliveryItem(delivery) } })),
      ];
      for (const { ref } of fanOut.events) {
        const pending = pendingWebhooks.get(ref.id) ?? 0;
        if (ref.kind !== 'snapshot' || pending === 0) continue;
        actions.push({
          Update: {
            TableName: name,
            Key: { PK: snapshotKeys.pk(ref.scope), SK: snapshotKeys.sk(ref.id) },
            UpdateExpression: 'SET pendingWebhooks = :pending',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':pending': pending },
          },
        });
      }
      if (actions.length > maxTransactionItems) {
        throw new Error(`Fan-out ${fanOut.id} makes ${deliveries.length} deliveries, more than one transaction holds (${maxTransactionItems}).`);
      }
      // Nobody subscribes: the record's removal alone, a plain conditional delete at half a transaction's price.
      if (actions.length === 1) return whenConditionHolds(() => table.delete(actions[0]!.Delete!));
      try {
        await table.transact(actions);
        return true;
      } catch (error) {
        if (failedCondition(cancellationCodes(error)?.[0])) return false;
        throw error;
      }
    },

    async overdue(dueBy, limit) {
      return (await dueItems(table, 'fan-outs', dueBy, limit)).map(toFanOut);
    },

    async reschedule(fanOut, to) {
      const due = dueEntry('fan-outs', fanOut.id, to);
      return whenConditionHolds(() =>
        table.update({
          TableName: name,
          Key: key(fanOut.id),
          UpdateExpression: 'SET GSI2PK = :gsi2pk, GSI2SK = :gsi2sk ADD sweeps :one',
          ConditionExpression: 'sweeps = :seen',
          ExpressionAttributeValues: { ':gsi2pk': due.GSI2PK, ':gsi2sk': due.GSI2SK, ':one': 1, ':seen': fanOut.sweeps ?? 0 },
        }),
      );
    },

    async park(fanOut) {
      await whenConditionHolds(() =>
        table.update({
          TableName: name,
          Key: key(fanOut.id),
          UpdateExpression: 'SET parked = :true REMOVE GSI2PK, GSI2SK',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':true': true },
        }),
      );
    },
  };
}
