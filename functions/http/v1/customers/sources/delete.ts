import { deleteSourceParams } from '#shared/customers/schemas.ts';
import { serializeDeletedSource } from '#shared/customers/serializer.ts';
import type { deletedSourceObject } from '#shared/customers/objects.ts';
import { wireCustomerService } from '#shared/customers/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireCustomerService();

/** DELETE /v1/customers/{id}/sources/{source_id}: a default source is replaced by the newest other one. */
export const handler = httpHandler(
  {
    summary: 'Detach a source from a customer',
    description: 'A default source is replaced by the newest other one.',
    params: deleteSourceParams,
    response: responds<typeof deletedSourceObject>(),
  },
  async ({ origin, pathParameters }) => ({
    body: serializeDeletedSource(await service.deleteSource(origin, pathParameters.id!, pathParameters.source_id!)),
  }),
);
