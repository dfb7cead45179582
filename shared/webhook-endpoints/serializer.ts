import * as z from 'zod';
import { deletedObject, metadataObject, unixTime } from '#shared/http/objects.ts';
import { unixSeconds } from '#shared/http/timestamps.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';

export const webhookEndpointObject = z
  .object({
    id: z.string(),
    object: z.literal('webhook_endpoint'),
    api_version: z.string().nullable(),
    application: z.string().nullable(),
    created: unixTime,
    description: z.string().nullable(),
    enabled_events: z.array(z.string()),
    livemode: z.boolean(),
    metadata: metadataObject,
    /** Only in the create response. */
    secret: z.string().optional(),
    status: z.enum(['enabled', 'disabled']),
    url: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const deletedWebhookEndpointObject = deletedObject('webhook_endpoint').meta({ id: 'DeletedWebhookEndpoint' });

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
