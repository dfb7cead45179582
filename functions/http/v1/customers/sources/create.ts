import { createSourceParams } from '#shared/customers/schemas.ts';
import { serializeSource } from '#shared/customers/serializer.ts';
import type { sourceObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCustomerService();
const expander = wireExpander('customer_source', customerExpansions);

/** POST /v1/customers/{id}/sources: `source=tok_…`, a card or bank account token, used up. */
export const handler = httpHandler(
  {
    summary: 'Attach a source to a customer',
    description: '`source=tok_…`: a card or bank account token, used up.',
    params: createSourceParams,
    response: responds<typeof sourceObject>(),
    expand: expander,
  },
  async ({ origin, params, pathParameters }) => ({
    body: serializeSource(await service.createSource(origin, pathParameters.id!, params)),
  }),
);
