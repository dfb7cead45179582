import { httpHandler, responds } from '#shared/http/handler.ts';
import { migrateSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { serializeSubscription } from '#shared/subscriptions/serializer.ts';
import type { subscriptionObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { invoiceExpansions } from '#shared/expansion/loaders/invoices.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander('subscription', customerExpansions, catalogueExpansions, invoiceExpansions);

/** POST /v1/subscriptions/{id}/migrate: classic → flexible, once. */
export const handler = httpHandler(
  {
    summary: 'Migrate a subscription',
    description: 'From the `classic` billing mode to `flexible`, once.',
    params: migrateSubscriptionParams,
    response: responds<typeof subscriptionObject>(),
    expand: expander,
  },
  async ({ origin, params, pathParameters }) => {
    return { body: serializeSubscription(await service.migrate({ origin }, pathParameters.id!, params)) };
  },
);
