import { deleteCustomerParams } from '#shared/customers/schemas.ts';
import { serializeDeletedCustomer } from '#shared/customers/serializer.ts';
import type { deletedCustomerObject } from '#shared/customers/objects.ts';
import { wireCustomerDeletion } from '#shared/customers/delete-wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireCustomerDeletion();

/** DELETE /v1/customers/{id}: cancels its subscriptions; it stays retrievable in its deleted form; a second delete is a 404. */
export const handler = httpHandler(
  { summary: 'Delete a customer', description: 'A second delete is a 404.', params: deleteCustomerParams, response: responds<typeof deletedCustomerObject>() },
  async ({ origin, pathParameters }) => {
    await service.delete(origin, pathParameters.id!);
    return { body: serializeDeletedCustomer(pathParameters.id!) };
  },
);
