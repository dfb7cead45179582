import { retrieveSourceParams } from '#shared/customers/schemas.ts';
import { serializeSource } from '#shared/customers/serializer.ts';
import type { sourceObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCustomerService();
const expander = wireExpander('customer_source', customerExpansions);

/** GET /v1/customers/{id}/sources/{source_id} */
export const handler = httpHandler(
  { summary: "Retrieve a customer's source", params: retrieveSourceParams, response: responds<typeof sourceObject>(), expand: expander },
  async ({ caller, pathParameters }) => ({
    body: serializeSource(await service.retrieveSource(caller.scope, pathParameters.id!, pathParameters.source_id!)),
  }),
);
