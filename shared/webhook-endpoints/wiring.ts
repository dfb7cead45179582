import { cacheTopics, invalidating } from '#shared/core/cache.ts';
import { config } from '#shared/core/config.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoWebhookEndpointRepository } from '#shared/data/webhook-endpoint-repository.ts';
import { wireSecretBox } from '#shared/secrets/wiring.ts';
import { webhookEndpointService } from './service.ts';

/** Webhook endpoints whose writes invalidate this process's cached copies (`cacheTopics.webhookEndpoints`). */
export const wireWebhookEndpointRepository = () => invalidating(dynamoWebhookEndpointRepository(serviceTable()), cacheTopics.webhookEndpoints);

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireWebhookEndpointService = () =>
  webhookEndpointService({
    repository: wireWebhookEndpointRepository(),
    maxEndpoints: config().MAX_WEBHOOK_ENDPOINTS,
    egress: { allowPrivateInTestMode: config().WEBHOOK_ALLOW_PRIVATE_TARGETS },
    secrets: wireSecretBox(),
  });
