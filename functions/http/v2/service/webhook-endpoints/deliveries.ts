import { targetDeliveriesHandler } from '#functions/http/v2/service/target-deliveries.ts';

/** GET /v2/service/webhook_endpoints/{id}/deliveries (this service's addition). */
export const handler = targetDeliveriesHandler('webhook_endpoint', {
  summary: "List a webhook endpoint's deliveries",
  description: "This service's addition: pending first, then failed, succeeded and canceled ones, each newest first.",
});
