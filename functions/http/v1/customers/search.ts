import { responds } from '#shared/http/handler.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import type { customerObject } from '#shared/customers/objects.ts';
import { wireCustomerSearch } from '#shared/search/wiring.ts';
import { searchHandler } from '../search-handler.ts';

/** GET /v1/customers/search: the reference's query language over created, email, metadata, name and phone. */
export const handler = searchHandler({
  type: 'customer',
  url: '/v1/customers/search',
  summary: 'Search customers',
  description: 'The search query language over created, email, metadata, name and phone; newest first.',
  object: responds<typeof customerObject>(),
  search: wireCustomerSearch(),
  serialize: (customer) => serializeCustomer(customer),
  expand: wireExpander('customer', customerExpansions),
});
