import { httpHandler, responds } from '#shared/http/handler.ts';
import { updateCardholderParams } from '#shared/issuing/schemas.ts';
import { serializeCardholder } from '#shared/issuing/serializers.ts';
import type { cardholderObject } from '#shared/issuing/objects.ts';
import { wireCardholderService } from '#shared/issuing/wiring.ts';

const service = wireCardholderService();

/** POST /v1/issuing/cardholders/{id} */
export const handler = httpHandler(
  {
    summary: 'Update a cardholder',
    params: updateCardholderParams,
    response: responds<typeof cardholderObject>(),
    idempotency: { answeredBy: 'issuing_cardholder.updated' },
  },
  async ({ origin, params, pathParameters }) => ({
    body: serializeCardholder(await service.update(origin, pathParameters.id!, params)),
  }),
);
