import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listSubscriptionItemsParams } from '#shared/subscriptions/schemas.ts';
import { serializeItem } from '#shared/subscriptions/serializer.ts';
import type { subscriptionItemObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander('subscription_item', catalogueExpansions);

/** GET /v1/subscription_items?subscription=…: the subscription's items, newest first. */
export const handler = httpHandler(
  {
    summary: 'List subscription items',
    description: 'The items of one subscription (`subscription`, required), newest first.',
    params: listSubscriptionItemsParams,
    response: responds<V1ListObject<typeof subscriptionItemObject>>(),
    expand: expander,
  },
  async ({ caller, params }) => {
    const { subscription, page } = await service.listItems(caller.scope, params.subscription, v1PageRequest(params));
    return { body: v1List('/v1/subscription_items', { ...page, items: page.items.map((item) => serializeItem(subscription, item)) }, params) };
  },
);
