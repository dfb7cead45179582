import { httpHandler } from '#shared/http/handler.ts';
import { billingModeRendering } from '#shared/subscriptions/rendering.ts';
import { migrateSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { serializeSubscription, subscriptionObject } from '#shared/subscriptions/serializer.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander();

/** POST /v1/subscriptions/{id}/migrate: classic → flexible, once. */
export const handler = httpHandler(
  { params: migrateSubscriptionParams, response: subscriptionObject, expand: expander },
  async ({ origin, params, pathParameters, explicitServiceVersion }) => {
    const rendering = billingModeRendering(explicitServiceVersion);
    return { body: serializeSubscription(await service.migrate({ origin, rendering }, pathParameters.id!, params), rendering) };
  },
);
