import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listWebhookEndpointsParams } from '#shared/webhook-endpoints/schemas.ts';
import { serializeWebhookEndpoint } from '#shared/webhook-endpoints/serializer.ts';
import type { webhookEndpointObject } from '#shared/webhook-endpoints/objects.ts';
import { wireWebhookEndpointService } from '#shared/webhook-endpoints/wiring.ts';

const service = wireWebhookEndpointService();

/** GET /v1/webhook_endpoints: newest first. */
export const handler = httpHandler(
  {
    summary: 'List all webhook endpoints',
    description: 'Newest first.',
    params: listWebhookEndpointsParams,
    response: responds<V1ListObject<typeof webhookEndpointObject>>(),
  },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params));
    return { body: v1List('/v1/webhook_endpoints', { ...page, items: page.items.map((endpoint) => serializeWebhookEndpoint(endpoint)) }, params) };
  },
);
