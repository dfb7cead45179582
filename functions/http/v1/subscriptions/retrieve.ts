import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { serializeSubscription } from '#shared/subscriptions/serializer.ts';
import type { subscriptionObject } from '#shared/subscriptions/objects.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { invoiceExpansions } from '#shared/expansion/loaders/invoices.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireSubscriptionService();
const expander = wireExpander('subscription', customerExpansions, catalogueExpansions, invoiceExpansions);

/** GET /v1/subscriptions/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a subscription', params: retrieveSubscriptionParams, response: responds<typeof subscriptionObject>(), expand: expander },
  async ({ caller, pathParameters }) => ({
    body: serializeSubscription(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
