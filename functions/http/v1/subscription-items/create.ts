import { httpHandler, responds } from '#shared/http/handler.ts';
import { createSubscriptionItemParams } from '#shared/subscriptions/schemas.ts';
import { serializeItem } from '#shared/subscriptions/serializer.ts';
import type { subscriptionItemObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander('subscription_item', catalogueExpansions);

/** POST /v1/subscription_items: adds an item to a subscription (`customer.subscription.updated`). */
export const handler = httpHandler(
  {
    summary: 'Create a subscription item',
    description: 'Adds an item to a subscription. Prorations are not built yet: a change that would prorate needs `proration_behavior=none`.',
    params: createSubscriptionItemParams,
    response: responds<typeof subscriptionItemObject>(),
    expand: expander,
  },
  async ({ origin, params }) => {
    const { subscription, item } = await service.createItem({ origin }, params);
    return { body: serializeItem(subscription, item) };
  },
);
