import { retrieveCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer, customerObject } from '#shared/customers/serializer.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCustomerService();

/** GET /v1/customers/{id}: `expand[]` default_source, sources. */
export const handler = httpHandler(
  { summary: 'Retrieve a customer', params: retrieveCustomerParams, response: customerObject },
  async ({ caller, params, pathParameters }) => {
    const customer = await service.retrieve(caller.scope, pathParameters.id!);
    return { body: serializeCustomer(customer, await service.expansions(caller.scope, customer, params.expand)) };
  },
);
