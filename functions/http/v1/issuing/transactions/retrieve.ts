import { httpHandler } from '#shared/http/handler.ts';
import { retrieveTransactionParams } from '#shared/issuing/schemas.ts';
import { serializeTransaction, issuingTransactionObject } from '#shared/issuing/serializers.ts';
import { wireTransactionService } from '#shared/issuing/wiring.ts';

const service = wireTransactionService();

/** GET /v1/issuing/transactions/{id} (`expand[]` card, cardholder) */
export const handler = httpHandler(
  { summary: 'Retrieve a transaction', params: retrieveTransactionParams, response: issuingTransactionObject },
  async ({ caller, params, pathParameters }) => {
    const transaction = await service.retrieve(caller.scope, pathParameters.id!);
    return { body: serializeTransaction(transaction, await service.expansions(caller.scope, transaction, params.expand)) };
  },
);
