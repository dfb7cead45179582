import { updateCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCustomerService();

/** POST /v1/customers/{id} */
export const handler = httpHandler({ params: updateCustomerParams }, async ({ origin, params, pathParameters }) => ({
  body: serializeCustomer(await service.update(origin, pathParameters.id!, params)),
}));
