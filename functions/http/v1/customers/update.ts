import { updateCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import type { customerObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireCustomerService();
const expander = wireExpander('customer', customerExpansions);

/** POST /v1/customers/{id}: `source=tok_…` replaces the default source. */
export const handler = httpHandler(
  {
    summary: 'Update a customer',
    description: '`source=tok_…` replaces the default source (the old one is deleted).',
    params: updateCustomerParams,
    response: responds<typeof customerObject>(),
    expand: expander,
    idempotency: { answeredBy: 'customer.updated' },
  },
  async ({ origin, params, pathParameters }) => ({
    body: serializeCustomer(await service.update(origin, pathParameters.id!, params)),
  }),
);
