import { httpHandler, responds } from '#shared/http/handler.ts';
import { updateTransactionParams } from '#shared/issuing/schemas.ts';
import { serializeTransaction } from '#shared/issuing/serializers.ts';
import type { issuingTransactionObject } from '#shared/issuing/objects.ts';
import { wireTransactionService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireTransactionService();
const expander = wireExpander('issuing.transaction', issuingExpansions);

/** POST /v1/issuing/transactions/{id}: metadata (`expand[]` card, cardholder) */
export const handler = httpHandler(
  {
    summary: 'Update a transaction',
    description: 'Its metadata.',
    params: updateTransactionParams,
    response: responds<typeof issuingTransactionObject>(),
    expand: expander,
  },
  async ({ origin, params, pathParameters }) => {
    const transaction = await service.update(origin, pathParameters.id!, params);
    return { body: serializeTransaction(transaction) };
  },
);
