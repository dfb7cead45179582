import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';
import type { webhookEndpointObject, deletedWebhookEndpointObject } from './objects.ts';

/** The API object. The secret appears only when the endpoint was just created. */
export function serializeWebhookEndpoint(endpoint: WebhookEndpoint, options: { includeSecret?: boolean } = {}): z.input<typeof webhookEndpointObject> {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    api_version: endpoint.apiVersion,
    application: endpoint.application,
    created: unixSeconds(endpoint.created),
    description: endpoint.description,
    enabled_events: endpoint.enabledEvents,
    livemode: endpoint.scope.livemode,
    metadata: endpoint.metadata,
    ...(options.includeSecret ? { secret: endpoint.secret } : {}),
    status: endpoint.status,
    url: endpoint.url,
  };
}

export const serializeDeletedWebhookEndpoint = (id: string): z.input<typeof deletedWebhookEndpointObject> => ({
  id,
  object: 'webhook_endpoint',
  deleted: true,
});
