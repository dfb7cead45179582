import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveCardholderParams } from '#shared/issuing/schemas.ts';
import { serializeCardholder } from '#shared/issuing/serializers.ts';
import type { cardholderObject } from '#shared/issuing/objects.ts';
import { wireCardholderService } from '#shared/issuing/wiring.ts';

const service = wireCardholderService();

/** GET /v1/issuing/cardholders/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a cardholder', params: retrieveCardholderParams, response: responds<typeof cardholderObject>() },
  async ({ caller, pathParameters }) => ({
    body: serializeCardholder(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
