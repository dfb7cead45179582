import { httpHandler } from '#shared/http/handler.ts';
import { createAuthorizationParams } from '#shared/issuing/schemas.ts';
import { serializeAuthorization, issuingAuthorizationObject } from '#shared/issuing/serializers.ts';
import { wireAuthorizationService } from '#shared/issuing/wiring.ts';

const service = wireAuthorizationService();

/** POST /v1/test_helpers/issuing/authorizations (test mode only) */
export const handler = httpHandler(
  { summary: 'Create a test-mode authorization', description: 'Test mode only.', params: createAuthorizationParams, response: issuingAuthorizationObject },
  async ({ origin, params }) => {
    const { authorization, transactions } = await service.create(origin, params);
    return { body: serializeAuthorization(authorization, transactions, await service.expansions(origin.scope, authorization, params.expand)) };
  },
);
