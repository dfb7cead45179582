import { listSourcesParams } from '#shared/customers/schemas.ts';
import { serializeSource } from '#shared/customers/serializer.ts';
import type { sourceObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCustomerService();
const expander = wireExpander('customer_source', customerExpansions);

/** GET /v1/customers/{id}/sources: newest first; `object` card or bank_account. */
export const handler = httpHandler(
  {
    summary: "List a customer's sources",
    description: 'Newest first; each is a `card` or a `bank_account`.',
    params: listSourcesParams,
    response: responds<V1ListObject<typeof sourceObject>>(),
    expand: expander,
  },
  async ({ caller, params, pathParameters }) => {
    const page = await service.listSources(caller.scope, pathParameters.id!, v1PageRequest(params), params.object);
    return { body: v1List(`/v1/customers/${pathParameters.id}/sources`, { ...page, items: page.items.map(serializeSource) }, params) };
  },
);
