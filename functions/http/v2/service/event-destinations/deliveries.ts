import { targetDeliveriesHandler } from '#functions/http/v2/service/target-deliveries.ts';

/** GET /v2/service/event_destinations/{id}/deliveries (this service's addition). */
export const handler = targetDeliveriesHandler('event_destination', {
  summary: "List an event destination's deliveries",
  description: "This service's addition: pending first, then failed, succeeded and canceled ones, each newest first.",
});
