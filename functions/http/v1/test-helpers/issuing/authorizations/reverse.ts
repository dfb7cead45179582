import { httpHandler, responds } from '#shared/http/handler.ts';
import { reverseAuthorizationParams } from '#shared/issuing/schemas.ts';
import { serializeAuthorization } from '#shared/issuing/serializers.ts';
import type { issuingAuthorizationObject } from '#shared/issuing/objects.ts';
import { wireAuthorizationService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireAuthorizationService();
const expander = wireExpander('issuing.authorization', issuingExpansions);

/** POST /v1/test_helpers/issuing/authorizations/{id}/reverse (test mode only) */
export const handler = httpHandler(
  {
    summary: 'Reverse a test-mode authorization',
    description: 'Test mode only.',
    params: reverseAuthorizationParams,
    response: responds<typeof issuingAuthorizationObject>(),
    expand: expander,
  },
  async ({ origin, params, pathParameters }) => {
    const { authorization, transactions } = await service.reverse(origin, pathParameters.id!, params);
    return { body: serializeAuthorization(authorization, transactions) };
  },
);
