import { httpHandler, responds } from '#shared/http/handler.ts';
import { updateSubscriptionItemParams } from '#shared/subscriptions/schemas.ts';
import { serializeItem } from '#shared/subscriptions/serializer.ts';
import type { subscriptionItemObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander('subscription_item', catalogueExpansions);

/** POST /v1/subscription_items/{id}: price, quantity, metadata (`customer.subscription.updated`). */
export const handler = httpHandler(
  {
    summary: 'Update a subscription item',
    description: 'Changes the price, quantity or metadata. Prorations are not built yet: a price or quantity change needs `proration_behavior=none`.',
    params: updateSubscriptionItemParams,
    response: responds<typeof subscriptionItemObject>(),
    expand: expander,
  },
  async ({ origin, params, pathParameters }) => {
    const { subscription, item } = await service.updateItem({ origin }, pathParameters.id!, params);
    return { body: serializeItem(subscription, item) };
  },
);
