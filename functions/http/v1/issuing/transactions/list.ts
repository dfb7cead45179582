import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listTransactionsParams } from '#shared/issuing/schemas.ts';
import { serializeTransaction } from '#shared/issuing/serializers.ts';
import type { issuingTransactionObject } from '#shared/issuing/objects.ts';
import { wireTransactionService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireTransactionService();
const expander = wireExpander('issuing.transaction', issuingExpansions);

/** GET /v1/issuing/transactions: newest first; filters card, cardholder, type, created; `expand[]` data.card, data.cardholder. */
export const handler = httpHandler(
  {
    summary: 'List all transactions',
    description: 'Newest first.',
    params: listTransactionsParams,
    response: responds<V1ListObject<typeof issuingTransactionObject>>(),
    expand: expander,
  },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), params);
    return { body: v1List('/v1/issuing/transactions', { ...page, items: page.items.map((transaction) => serializeTransaction(transaction)) }, params) };
  },
);
