import { httpHandler, responds } from '#shared/http/handler.ts';
import { refundTransactionParams } from '#shared/issuing/schemas.ts';
import { serializeTransaction } from '#shared/issuing/serializers.ts';
import type { issuingTransactionObject } from '#shared/issuing/objects.ts';
import { wireTransactionService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireTransactionService();
const expander = wireExpander('issuing.transaction', issuingExpansions);

/** POST /v1/test_helpers/issuing/transactions/{id}/refund (test mode only): answers the refund transaction */
export const handler = httpHandler(
  {
    summary: 'Refund a test-mode transaction',
    description: 'Test mode only. Answers the refund transaction.',
    params: refundTransactionParams,
    response: responds<typeof issuingTransactionObject>(),
    expand: expander,
  },
  async ({ origin, params, pathParameters }) => {
    const refund = await service.refund(origin, pathParameters.id!, params);
    return { body: serializeTransaction(refund) };
  },
);
