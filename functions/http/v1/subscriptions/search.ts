import { responds } from '#shared/http/handler.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { invoiceExpansions } from '#shared/expansion/loaders/invoices.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { wireSubscriptionSearch } from '#shared/search/wiring.ts';
import { serializeSubscription } from '#shared/subscriptions/serializer.ts';
import type { subscriptionObject } from '#shared/subscriptions/objects.ts';
import { searchHandler } from '../search-handler.ts';

/** GET /v1/subscriptions/search: over created, metadata and status (canceled ones included). */
export const handler = searchHandler({
  type: 'subscription',
  url: '/v1/subscriptions/search',
  summary: 'Search subscriptions',
  description: 'The search query language over created, metadata and status; canceled ones included; newest first.',
  object: responds<typeof subscriptionObject>(),
  search: wireSubscriptionSearch(),
  serialize: (subscription) => serializeSubscription(subscription),
  expand: wireExpander('subscription', customerExpansions, catalogueExpansions, invoiceExpansions),
});
