import { httpHandler, responds } from '#shared/http/handler.ts';
import { deleteSubscriptionItemParams } from '#shared/subscriptions/schemas.ts';
import { serializeDeletedSubscriptionItem } from '#shared/subscriptions/serializer.ts';
import type { deletedSubscriptionItemObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';

const service = wireSubscriptionService();

/** DELETE /v1/subscription_items/{id}: removes an item (never the last one) (`customer.subscription.updated`). */
export const handler = httpHandler(
  {
    summary: 'Delete a subscription item',
    description: 'Removes an item; the last item of a subscription cannot be removed. Prorations are not built yet: pass `proration_behavior=none`.',
    params: deleteSubscriptionItemParams,
    response: responds<typeof deletedSubscriptionItemObject>(),
  },
  async ({ origin, params, pathParameters }) => {
    await service.deleteItem({ origin }, pathParameters.id!, params);
    return { body: serializeDeletedSubscriptionItem(pathParameters.id!) };
  },
);
