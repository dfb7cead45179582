import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listCardsParams } from '#shared/issuing/schemas.ts';
import { serializeCard } from '#shared/issuing/serializers.ts';
import type { issuingCardObject } from '#shared/issuing/objects.ts';
import { wireCardService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCardService();
const expander = wireExpander('issuing.card', issuingExpansions);

/** GET /v1/issuing/cards: newest first; filters cardholder, created, status, type. */
export const handler = httpHandler(
  {
    summary: 'List all cards',
    description: 'Newest first.',
    params: listCardsParams,
    response: responds<V1ListObject<typeof issuingCardObject>>(),
    expand: expander,
  },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), params);
    return { body: v1List('/v1/issuing/cards', { ...page, items: page.items.map(({ card, cardholder }) => serializeCard(card, cardholder)) }, params) };
  },
);
