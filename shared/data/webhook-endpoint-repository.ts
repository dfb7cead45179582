import * as z from 'zod';
import type { WebhookEndpoint, WebhookEndpointRepository } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import { metadataItem, orNull, ownedItem } from './item-schemas.ts';
import type { Table } from './table.ts';
import { webhookEndpoint } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';

const webhookEndpointItem = z.object({
  ...ownedItem,
  created: z.number(),
  url: z.string(),
  enabledEvents: z.array(z.string()),
  description: orNull(z.string()),
  metadata: metadataItem,
  apiVersion: orNull(z.string()),
  application: orNull(z.string()),
  connect: z.boolean().default(false),
  status: z.enum(['enabled', 'disabled']),
  secret: z.string(),
});

/** DynamoDB adapter: endpoints live in their owner's partition, capped per owner by `COUNTER#webhook_endpoints`. */
export const dynamoWebhookEndpointRepository = (table: Table): WebhookEndpointRepository =>
  ownedResourceStore<WebhookEndpoint>(table, {
    entity: 'webhook_endpoint',
    keys: webhookEndpoint,
    counterName: 'webhook_endpoints',
    parse: (item) => webhookEndpointItem.parse(item),
  });
