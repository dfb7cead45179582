import { httpHandler, responds } from '#shared/http/handler.ts';
import { meterParams } from '#shared/meters/schemas.ts';
import { serializeMeter } from '#shared/meters/serializer.ts';
import type { meterObject } from '#shared/meters/objects.ts';
import { wireMeterService } from '#shared/meters/wiring.ts';

const service = wireMeterService();

/** GET /v1/billing/meters/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a billing meter', params: meterParams, response: responds<typeof meterObject>() },
  async ({ caller, pathParameters }) => ({
    body: serializeMeter(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
