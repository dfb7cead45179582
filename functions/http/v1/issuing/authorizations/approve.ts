import { httpHandler, responds } from '#shared/http/handler.ts';
import { approveAuthorizationParams } from '#shared/issuing/schemas.ts';
import { serializeAuthorization } from '#shared/issuing/serializers.ts';
import type { issuingAuthorizationObject } from '#shared/issuing/objects.ts';
import { wireAuthorizationService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireAuthorizationService();
const expander = wireExpander('issuing.authorization', issuingExpansions);

/**
 * POST /v1/issuing/authorizations/{id}/approve (deprecated in the reference): answers a pending request,
 * which authorizations here never have, so after the parameters and the id are checked it refuses (400).
 */
export const handler = httpHandler(
  {
    summary: 'Approve an authorization',
    description:
      'Deprecated in the reference API: it answers an authorization awaiting a decision, which authorizations here never are, so once the parameters and the id are checked it is refused (400).',
    params: approveAuthorizationParams,
    response: responds<typeof issuingAuthorizationObject>(),
    expand: expander,
  },
  async ({ origin, pathParameters }) => {
    const { authorization, transactions } = await service.approve(origin.scope, pathParameters.id!);
    return { body: serializeAuthorization(authorization, transactions) };
  },
);
