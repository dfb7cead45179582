import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveCardParams } from '#shared/issuing/schemas.ts';
import { serializeCard } from '#shared/issuing/serializers.ts';
import type { issuingCardObject } from '#shared/issuing/objects.ts';
import { wireCardService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCardService();
const expander = wireExpander('issuing.card', issuingExpansions);

/** GET /v1/issuing/cards/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a card', params: retrieveCardParams, response: responds<typeof issuingCardObject>(), expand: expander },
  async ({ caller, pathParameters }) => {
    const { card, cardholder } = await service.retrieve(caller.scope, pathParameters.id!);
    return { body: serializeCard(card, cardholder) };
  },
);
