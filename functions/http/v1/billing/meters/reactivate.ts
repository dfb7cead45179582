import { httpHandler, responds } from '#shared/http/handler.ts';
import { meterParams } from '#shared/meters/schemas.ts';
import { serializeMeter } from '#shared/meters/serializer.ts';
import type { meterObject } from '#shared/meters/objects.ts';
import { wireMeterService } from '#shared/meters/wiring.ts';

const service = wireMeterService();

/** POST /v1/billing/meters/{id}/reactivate: back to active. */
export const handler = httpHandler(
  { summary: 'Reactivate a billing meter', description: 'Back to `active`.', params: meterParams, response: responds<typeof meterObject>() },
  async ({ origin, pathParameters }) => ({
    body: serializeMeter(await service.reactivate(origin, pathParameters.id!)),
  }),
);
