import { httpHandler, responds } from '#shared/http/handler.ts';
import { updateWebhookEndpointParams } from '#shared/webhook-endpoints/schemas.ts';
import { serializeWebhookEndpoint } from '#shared/webhook-endpoints/serializer.ts';
import type { webhookEndpointObject } from '#shared/webhook-endpoints/objects.ts';
import { wireWebhookEndpointService } from '#shared/webhook-endpoints/wiring.ts';

const service = wireWebhookEndpointService();

/** POST /v1/webhook_endpoints/{id} */
export const handler = httpHandler(
  { summary: 'Update a webhook endpoint', params: updateWebhookEndpointParams, response: responds<typeof webhookEndpointObject>() },
  async ({ caller, params, pathParameters }) => ({
    body: serializeWebhookEndpoint(await service.update(caller.scope, pathParameters.id!, params)),
  }),
);
