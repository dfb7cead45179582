import { httpHandler, responds } from '#shared/http/handler.ts';
import { updateCardParams } from '#shared/issuing/schemas.ts';
import { serializeCard } from '#shared/issuing/serializers.ts';
import type { issuingCardObject } from '#shared/issuing/objects.ts';
import { wireCardService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCardService();
const expander = wireExpander('issuing.card', issuingExpansions);

/** POST /v1/issuing/cards/{id}: status (active, inactive; canceled for good, with cancellation_reason) and metadata */
export const handler = httpHandler(
  {
    summary: 'Update a card',
    description: 'Its `status` (`active`, `inactive`; `canceled` for good, with `cancellation_reason`) and metadata.',
    params: updateCardParams,
    response: responds<typeof issuingCardObject>(),
    idempotency: { answeredBy: 'issuing_card.updated' },
    expand: expander,
  },
  async ({ origin, params, pathParameters }) => {
    const { card, cardholder } = await service.update(origin, pathParameters.id!, params);
    return { body: serializeCard(card, cardholder) };
  },
);
