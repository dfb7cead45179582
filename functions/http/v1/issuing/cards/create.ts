import { httpHandler, responds } from '#shared/http/handler.ts';
import { createCardParams } from '#shared/issuing/schemas.ts';
import { serializeCard } from '#shared/issuing/serializers.ts';
import type { issuingCardObject } from '#shared/issuing/objects.ts';
import { wireCardService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCardService();
const expander = wireExpander('issuing.card', issuingExpansions);

/** POST /v1/issuing/cards */
export const handler = httpHandler(
  {
    summary: 'Create a card',
    params: createCardParams,
    response: responds<typeof issuingCardObject>(),
    idempotency: { answeredBy: 'issuing_card.created' },
    expand: expander,
  },
  async ({ origin, params }) => {
    const { card, cardholder } = await service.create(origin, params);
    return { body: serializeCard(card, cardholder) };
  },
);
