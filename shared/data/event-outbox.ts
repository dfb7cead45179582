import { destinationSubscriber } from '#shared/event-destinations/event-destination.ts';
import type { OutboxStore, SubscriberDirectory } from '#shared/events/ports.ts';
import { endpointSubscriber } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import type { BatchWriteRequests, Table } from './table.ts';
import { dynamoEventDestinationRepository } from './event-destination-repository.ts';
import { outboxItems } from './outbox-items.ts';

const maxBatchWrite = 25;
import { dynamoWebhookEndpointRepository } from './webhook-endpoint-repository.ts';

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
