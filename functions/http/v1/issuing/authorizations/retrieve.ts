import { httpHandler } from '#shared/http/handler.ts';
import { retrieveAuthorizationParams } from '#shared/issuing/schemas.ts';
import { serializeAuthorization, issuingAuthorizationObject } from '#shared/issuing/serializers.ts';
import { wireAuthorizationService } from '#shared/issuing/wiring.ts';

const service = wireAuthorizationService();

/** GET /v1/issuing/authorizations/{id} (`expand[]` card, cardholder) */
export const handler = httpHandler(
  { summary: 'Retrieve an authorization', params: retrieveAuthorizationParams, response: issuingAuthorizationObject },
  async ({ caller, params, pathParameters }) => {
    const { authorization, transactions } = await service.retrieve(caller.scope, pathParameters.id!);
    return { body: serializeAuthorization(authorization, transactions, await service.expansions(caller.scope, authorization, params.expand)) };
  },
);
