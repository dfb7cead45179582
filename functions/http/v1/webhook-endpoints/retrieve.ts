import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveWebhookEndpointParams } from '#shared/webhook-endpoints/schemas.ts';
import { serializeWebhookEndpoint } from '#shared/webhook-endpoints/serializer.ts';
import type { webhookEndpointObject } from '#shared/webhook-endpoints/objects.ts';
import { wireWebhookEndpointService } from '#shared/webhook-endpoints/wiring.ts';

const service = wireWebhookEndpointService();

/** GET /v1/webhook_endpoints/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a webhook endpoint', params: retrieveWebhookEndpointParams, response: responds<typeof webhookEndpointObject>() },
  async ({ caller, pathParameters }) => ({
    body: serializeWebhookEndpoint(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
