import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listMetersParams } from '#shared/meters/schemas.ts';
import { serializeMeter } from '#shared/meters/serializer.ts';
import type { meterObject } from '#shared/meters/objects.ts';
import { wireMeterService } from '#shared/meters/wiring.ts';

const service = wireMeterService();

/** GET /v1/billing/meters: newest first, optionally only active or inactive ones. */
export const handler = httpHandler(
  {
    summary: 'List billing meters',
    description: 'Newest first, optionally only active or inactive ones.',
    params: listMetersParams,
    response: responds<V1ListObject<typeof meterObject>>(),
  },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), params.status);
    return { body: v1List('/v1/billing/meters', { ...page, items: page.items.map(serializeMeter) }, params) };
  },
);
