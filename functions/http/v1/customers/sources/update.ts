import { updateSourceParams } from '#shared/customers/schemas.ts';
import { serializeSource } from '#shared/customers/serializer.ts';
import type { sourceObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { customerExpansions } from '#shared/expansion/loaders/customers.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCustomerService();
const expander = wireExpander('customer_source', customerExpansions);

/** POST /v1/customers/{id}/sources/{source_id} */
export const handler = httpHandler(
  { summary: "Update a customer's source", params: updateSourceParams, response: responds<typeof sourceObject>(), expand: expander },
  async ({ origin, params, pathParameters }) => ({
    body: serializeSource(await service.updateSource(origin, pathParameters.id!, pathParameters.source_id!, params)),
  }),
);
