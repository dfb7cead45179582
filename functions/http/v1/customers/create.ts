import { createCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import type { customerObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCustomerService();
const expander = wireExpander('customer', customerExpansions);

/** POST /v1/customers: with `source=tok_…`, its first card or bank account. */
export const handler = httpHandler(
  {
    summary: 'Create a customer',
    description: "With `source=tok_…`, the token's card or bank account becomes the customer's first source.",
    params: createCustomerParams,
    response: responds<typeof customerObject>(),
    expand: expander,
    idempotency: { answeredBy: 'customer.created' },
  },
  async ({ origin, params }) => ({
    body: serializeCustomer(await service.create(origin, params)),
  }),
);
