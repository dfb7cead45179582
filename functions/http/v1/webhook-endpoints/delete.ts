import { httpHandler, responds } from '#shared/http/handler.ts';
import { deleteWebhookEndpointParams } from '#shared/webhook-endpoints/schemas.ts';
import { serializeDeletedWebhookEndpoint } from '#shared/webhook-endpoints/serializer.ts';
import type { deletedWebhookEndpointObject } from '#shared/webhook-endpoints/objects.ts';
import { wireWebhookEndpointService } from '#shared/webhook-endpoints/wiring.ts';

const service = wireWebhookEndpointService();

/** DELETE /v1/webhook_endpoints/{id}: a second delete is a 404. */
export const handler = httpHandler(
  {
    summary: 'Delete a webhook endpoint',
    description: 'A second delete is a 404.',
    params: deleteWebhookEndpointParams,
    response: responds<typeof deletedWebhookEndpointObject>(),
  },
  async ({ caller, pathParameters }) => {
    await service.delete(caller.scope, pathParameters.id!);
    return { body: serializeDeletedWebhookEndpoint(pathParameters.id!) };
  },
);
