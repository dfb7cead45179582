import { httpHandler, responds } from '#shared/http/handler.ts';
import { cancelSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { serializeSubscription } from '#shared/subscriptions/serializer.ts';
import type { subscriptionObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { invoiceExpansions } from '#shared/expansion/loaders/invoices.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander('subscription', customerExpansions, catalogueExpansions, invoiceExpansions);

/** DELETE /v1/subscriptions/{id}: cancels at once and answers the canceled subscription. */
export const handler = httpHandler(
  {
    summary: 'Cancel a subscription',
    description: 'Cancels at once and answers the canceled subscription.',
    params: cancelSubscriptionParams,
    response: responds<typeof subscriptionObject>(),
    expand: expander,
  },
  async ({ origin, params, pathParameters }) => {
    return { body: serializeSubscription(await service.cancel({ origin }, pathParameters.id!, params)) };
  },
);
