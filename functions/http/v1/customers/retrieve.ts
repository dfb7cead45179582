import { retrieveCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCustomerService();

/** GET /v1/customers/{id} */
export const handler = httpHandler({ params: retrieveCustomerParams }, async ({ caller, pathParameters }) => ({
  body: serializeCustomer(await service.retrieve(caller.scope, pathParameters.id!)),
}));
