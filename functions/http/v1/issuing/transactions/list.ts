import { httpHandler } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, v1ListObject } from '#shared/http/pagination.ts';
import { listTransactionsParams } from '#shared/issuing/schemas.ts';
import { serializeTransaction, issuingTransactionObject } from '#shared/issuing/serializers.ts';
import { wireTransactionService } from '#shared/issuing/wiring.ts';

const service = wireTransactionService();

/** GET /v1/issuing/transactions: newest first; filters card, cardholder, type, created; `expand[]` data.card, data.cardholder. */
export const handler = httpHandler(
  { summary: 'List all transactions', description: 'Newest first.', params: listTransactionsParams, response: v1ListObject(issuingTransactionObject) },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), params);
    const expand = (params.expand ?? []).map((field) => field.slice('data.'.length));
    const items = await Promise.all(
      page.items.map(async (transaction) => serializeTransaction(transaction, await service.expansions(caller.scope, transaction, expand))),
    );
    return { body: v1List('/v1/issuing/transactions', { ...page, items }, params) };
  },
);
