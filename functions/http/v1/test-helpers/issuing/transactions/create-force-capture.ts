import { httpHandler, responds } from '#shared/http/handler.ts';
import { createForceCaptureParams } from '#shared/issuing/schemas.ts';
import { serializeTransaction } from '#shared/issuing/serializers.ts';
import type { issuingTransactionObject } from '#shared/issuing/objects.ts';
import { wireTransactionService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireTransactionService();
const expander = wireExpander('issuing.transaction', issuingExpansions);

/** POST /v1/test_helpers/issuing/transactions/create_force_capture (test mode only): a capture without an authorization */
export const handler = httpHandler(
  {
    summary: 'Create a test-mode force capture',
    description: 'Test mode only: a capture without an authorization.',
    params: createForceCaptureParams,
    response: responds<typeof issuingTransactionObject>(),
    expand: expander,
  },
  async ({ origin, params }) => {
    const transaction = await service.createForceCapture(origin, params);
    return { body: serializeTransaction(transaction) };
  },
);
