import { httpHandler, responds } from '#shared/http/handler.ts';
import { meterParams } from '#shared/meters/schemas.ts';
import { serializeMeter } from '#shared/meters/serializer.ts';
import type { meterObject } from '#shared/meters/objects.ts';
import { wireMeterService } from '#shared/meters/wiring.ts';

const service = wireMeterService();

/** POST /v1/billing/meters/{id}/deactivate: the meter stops accepting events (status inactive). */
export const handler = httpHandler(
  {
    summary: 'Deactivate a billing meter',
    description: 'The meter stops accepting events (`status: inactive`).',
    params: meterParams,
    response: responds<typeof meterObject>(),
  },
  async ({ origin, pathParameters }) => ({
    body: serializeMeter(await service.deactivate(origin, pathParameters.id!)),
  }),
);
