import { httpHandler, responds } from '#shared/http/handler.ts';
import { createMeterParams } from '#shared/meters/schemas.ts';
import { serializeMeter } from '#shared/meters/serializer.ts';
import type { meterObject } from '#shared/meters/objects.ts';
import { wireMeterService } from '#shared/meters/wiring.ts';

const service = wireMeterService();

/** POST /v1/billing/meters */
export const handler = httpHandler(
  {
    summary: 'Create a billing meter',
    params: createMeterParams,
    response: responds<typeof meterObject>(),
    idempotency: { answeredBy: 'billing.meter.created' },
  },
  async ({ origin, params }) => ({
    body: serializeMeter(await service.create(origin, params)),
  }),
);
