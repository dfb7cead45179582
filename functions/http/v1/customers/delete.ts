import { deleteCustomerParams } from '#shared/customers/schemas.ts';
import { serializeDeletedCustomer, deletedCustomerObject } from '#shared/customers/serializer.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCustomerService();

/** DELETE /v1/customers/{id}: a second delete is a 404. */
export const handler = httpHandler(
  { summary: 'Delete a customer', description: 'A second delete is a 404.', params: deleteCustomerParams, response: deletedCustomerObject },
  async ({ origin, pathParameters }) => {
    await service.delete(origin, pathParameters.id!);
    return { body: serializeDeletedCustomer(pathParameters.id!) };
  },
);
