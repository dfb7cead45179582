import { httpHandler, responds } from '#shared/http/handler.ts';
import { createWebhookEndpointParams } from '#shared/webhook-endpoints/schemas.ts';
import { serializeWebhookEndpoint } from '#shared/webhook-endpoints/serializer.ts';
import type { webhookEndpointObject } from '#shared/webhook-endpoints/objects.ts';
import { wireWebhookEndpointService } from '#shared/webhook-endpoints/wiring.ts';

const service = wireWebhookEndpointService();

/** POST /v1/webhook_endpoints: the only response that shows the signing secret. */
export const handler = httpHandler(
  {
    summary: 'Create a webhook endpoint',
    description: "The only response that shows the endpoint's signing `secret`.",
    params: createWebhookEndpointParams,
    response: responds<typeof webhookEndpointObject>(),
  },
  async ({ caller, params }) => ({
    body: serializeWebhookEndpoint(await service.create(caller.scope, params), { includeSecret: true }),
  }),
);
