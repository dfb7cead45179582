import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveTransactionParams } from '#shared/issuing/schemas.ts';
import { serializeTransaction } from '#shared/issuing/serializers.ts';
import type { issuingTransactionObject } from '#shared/issuing/objects.ts';
import { wireTransactionService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireTransactionService();
const expander = wireExpander('issuing.transaction', issuingExpansions);

/** GET /v1/issuing/transactions/{id} (`expand[]` card, cardholder) */
export const handler = httpHandler(
  { summary: 'Retrieve a transaction', params: retrieveTransactionParams, response: responds<typeof issuingTransactionObject>(), expand: expander },
  async ({ caller, pathParameters }) => {
    const transaction = await service.retrieve(caller.scope, pathParameters.id!);
    return { body: serializeTransaction(transaction) };
  },
);
