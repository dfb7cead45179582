import type { WebhookEndpoint, WebhookEndpointRepository } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import type { Table } from './table.ts';
import { webhookEndpoint } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';

/** DynamoDB adapter: endpoints live in their owner's partition, capped per owner by `COUNTER#webhook_endpoints`. */
export const dynamoWebhookEndpointRepository = (table: Table): WebhookEndpointRepository =>
  ownedResourceStore<WebhookEndpoint>(table, { entity: 'webhook_endpoint', keys: webhookEndpoint, counterName: 'webhook_endpoints' });
