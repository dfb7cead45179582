import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveSubscriptionItemParams } from '#shared/subscriptions/schemas.ts';
import { serializeItem } from '#shared/subscriptions/serializer.ts';
import type { subscriptionItemObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander('subscription_item', catalogueExpansions);

/** GET /v1/subscription_items/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a subscription item', params: retrieveSubscriptionItemParams, response: responds<typeof subscriptionItemObject>(), expand: expander },
  async ({ caller, pathParameters }) => {
    const { subscription, item } = await service.retrieveItem(caller.scope, pathParameters.id!);
    return { body: serializeItem(subscription, item) };
  },
);
