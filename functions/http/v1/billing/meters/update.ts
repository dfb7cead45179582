import { httpHandler, responds } from '#shared/http/handler.ts';
import { updateMeterParams } from '#shared/meters/schemas.ts';
import { serializeMeter } from '#shared/meters/serializer.ts';
import type { meterObject } from '#shared/meters/objects.ts';
import { wireMeterService } from '#shared/meters/wiring.ts';

const service = wireMeterService();

/** POST /v1/billing/meters/{id}: only the display name changes. */
export const handler = httpHandler(
  {
    summary: 'Update a billing meter',
    description: 'Only the display name changes.',
    params: updateMeterParams,
    response: responds<typeof meterObject>(),
    idempotency: { answeredBy: 'billing.meter.updated' },
  },
  async ({ origin, params, pathParameters }) => ({
    body: serializeMeter(await service.update(origin, pathParameters.id!, params)),
  }),
);
