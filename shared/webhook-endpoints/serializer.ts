import { unixSeconds } from '#shared/http/timestamps.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';

/** The API object. The secret appears only when the endpoint was just created. */
export function serializeWebhookEndpoint(endpoint: WebhookEndpoint, options: { includeSecret?: boolean } = {}) {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint' as const,
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

export const serializeDeletedWebhookEndpoint = (id: string) => ({ id, object: 'webhook_endpoint' as const, deleted: true as const });
