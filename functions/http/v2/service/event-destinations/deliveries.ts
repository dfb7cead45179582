import { targetDeliveriesHandler } from '#functions/http/v2/service/target-deliveries.ts';

/** GET /v2/service/event_destinations/{id}/deliveries (this service's addition). */
export const handler = targetDeliveriesHandler('event_destination');
