import { listCustomersParams } from '#shared/customers/schemas.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import type { customerObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';

const service = wireCustomerService();
const expander = wireExpander('customer', customerExpansions);

/** GET /v1/customers: newest first; `email` (exact), `created`, `test_clock`; `expand[]` data.default_source. Deleted customers are not listed. */
export const handler = httpHandler(
  {
    summary: 'List all customers',
    description: 'Newest first.',
    params: listCustomersParams,
    response: responds<V1ListObject<typeof customerObject>>(),
    expand: expander,
  },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), { email: params.email, created: params.created, testClock: params.test_clock });
    return { body: v1List('/v1/customers', { ...page, items: page.items.map((customer) => serializeCustomer(customer)) }, params) };
  },
);
