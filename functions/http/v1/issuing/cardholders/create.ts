import { httpHandler, responds } from '#shared/http/handler.ts';
import { createCardholderParams } from '#shared/issuing/schemas.ts';
import { serializeCardholder } from '#shared/issuing/serializers.ts';
import type { cardholderObject } from '#shared/issuing/objects.ts';
import { wireCardholderService } from '#shared/issuing/wiring.ts';

const service = wireCardholderService();

/** POST /v1/issuing/cardholders */
export const handler = httpHandler(
  {
    summary: 'Create a cardholder',
    params: createCardholderParams,
    response: responds<typeof cardholderObject>(),
    idempotency: { answeredBy: 'issuing_cardholder.created' },
  },
  async ({ origin, params }) => ({
    body: serializeCardholder(await service.create(origin, params)),
  }),
);
