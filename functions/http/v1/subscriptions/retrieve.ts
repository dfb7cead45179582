import { httpHandler } from '#shared/http/handler.ts';
import { retrieveSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { serializeSubscription, subscriptionObject } from '#shared/subscriptions/serializer.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';

const service = wireSubscriptionService();

/** GET /v1/subscriptions/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a subscription', params: retrieveSubscriptionParams, response: subscriptionObject },
  async ({ caller, pathParameters }) => ({
    body: serializeSubscription(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
