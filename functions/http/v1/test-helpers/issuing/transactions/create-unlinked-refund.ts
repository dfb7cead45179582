import { httpHandler, responds } from '#shared/http/handler.ts';
import { createUnlinkedRefundParams } from '#shared/issuing/schemas.ts';
import { serializeTransaction } from '#shared/issuing/serializers.ts';
import type { issuingTransactionObject } from '#shared/issuing/objects.ts';
import { wireTransactionService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireTransactionService();
const expander = wireExpander('issuing.transaction', issuingExpansions);

/** POST /v1/test_helpers/issuing/transactions/create_unlinked_refund (test mode only): a refund without an authorization */
export const handler = httpHandler(
  {
    summary: 'Create a test-mode unlinked refund',
    description: 'Test mode only: a refund without an authorization.',
    params: createUnlinkedRefundParams,
    response: responds<typeof issuingTransactionObject>(),
    expand: expander,
  },
  async ({ origin, params }) => {
    const transaction = await service.createUnlinkedRefund(origin, params);
    return { body: serializeTransaction(transaction) };
  },
);
