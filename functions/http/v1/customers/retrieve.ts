import { retrieveCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer, customerObject } from '#shared/customers/serializer.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCustomerService();
const expander = wireExpander();

/** GET /v1/customers/{id}: `expand[]` default_source, sources. */
export const handler = httpHandler(
  { summary: 'Retrieve a customer', params: retrieveCustomerParams, response: customerObject, expand: expander },
  async ({ caller, pathParameters }) => ({
    body: serializeCustomer(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
