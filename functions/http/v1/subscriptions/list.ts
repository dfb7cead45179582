import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listSubscriptionsParams } from '#shared/subscriptions/schemas.ts';
import { serializeSubscription } from '#shared/subscriptions/serializer.ts';
import type { subscriptionObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { invoiceExpansions } from '#shared/expansion/loaders/invoices.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander('subscription', customerExpansions, catalogueExpansions, invoiceExpansions);

/** GET /v1/subscriptions: newest first; created, customer and status filters (not canceled by default). */
export const handler = httpHandler(
  {
    summary: 'List subscriptions',
    description: 'Newest first; not canceled ones unless `status` says otherwise.',
    params: listSubscriptionsParams,
    response: responds<V1ListObject<typeof subscriptionObject>>(),
    expand: expander,
  },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), { customer: params.customer, status: params.status, created: params.created });
    return { body: v1List('/v1/subscriptions', { ...page, items: page.items.map((subscription) => serializeSubscription(subscription)) }, params) };
  },
);
