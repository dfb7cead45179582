import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { EventDestination } from '#shared/event-destinations/event-destination.ts';
import type { Subscriber } from '#shared/events/event.ts';
import type { OutboxStore, SubscriberDirectory } from '#shared/events/ports.ts';
import type { WebhookEndpoint } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import type { Table } from './client.ts';
import { dynamoEventDestinationRepository } from './event-destination-repository.ts';
import { outboxItems } from './outbox-items.ts';
import { dynamoWebhookEndpointRepository } from './webhook-endpoint-repository.ts';

const destinationSubscriber = (destination: EventDestination): Subscriber => ({
  ref: { kind: 'event_destination', scope: destination.scope, id: destination.id },
  payload: destination.eventPayload,
  enabled: destination.status === 'enabled',
  enabledEvents: destination.enabledEvents,
  eventsFrom: destination.eventsFrom ?? ['@self'],
});

const endpointSubscriber = (endpoint: WebhookEndpoint): Subscriber => ({
  ref: { kind: 'webhook_endpoint', scope: endpoint.scope, id: endpoint.id },
  payload: 'snapshot',
  enabled: endpoint.status === 'enabled',
  enabledEvents: endpoint.enabledEvents,
  eventsFrom: endpoint.connect ? ['@self', '@accounts'] : ['@self'],
});

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

/** Writes an outbox on its own, in one transaction. */
export function dynamoOutboxStore(table: Table): OutboxStore {
  return {
    async commit(outbox) {
      const items = outboxItems(table.name, outbox);
      if (items.length > 0) await table.client.send(new TransactWriteCommand({ TransactItems: items }));
    },
  };
}
