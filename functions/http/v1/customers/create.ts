import { createCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCustomerService();

/** POST /v1/customers */
export const handler = httpHandler({ params: createCustomerParams }, async ({ origin, params }) => ({
  body: serializeCustomer(await service.create(origin, params)),
}));
