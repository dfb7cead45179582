import { isDeletedCustomer } from '#shared/customers/customer.ts';
import { retrieveCustomerParams } from '#shared/customers/schemas.ts';
import { serializeCustomer, serializeDeletedCustomer } from '#shared/customers/serializer.ts';
import type { customerObject, deletedCustomerObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import type * as z from 'zod';

const service = wireCustomerService();
const expander = wireExpander('customer', customerExpansions);

/** GET /v1/customers/{id}: `expand[]` default_source, sources; a deleted customer answers its deleted form, as the reference does. */
export const handler = httpHandler(
  {
    summary: 'Retrieve a customer',
    params: retrieveCustomerParams,
    response: responds<z.ZodUnion<[typeof customerObject, typeof deletedCustomerObject]>>(),
    expand: expander,
  },
  async ({ caller, pathParameters }) => {
    const found = await service.retrieve(caller.scope, pathParameters.id!);
    return { body: isDeletedCustomer(found) ? serializeDeletedCustomer(found.id) : serializeCustomer(found) };
  },
);
