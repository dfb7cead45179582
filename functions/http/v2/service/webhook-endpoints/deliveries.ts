import { targetDeliveriesHandler } from '#functions/http/v2/service/target-deliveries.ts';

/** GET /v2/service/webhook_endpoints/{id}/deliveries (this service's addition). */
export const handler = targetDeliveriesHandler('webhook_endpoint');
