import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveAuthorizationParams } from '#shared/issuing/schemas.ts';
import { serializeAuthorization } from '#shared/issuing/serializers.ts';
import type { issuingAuthorizationObject } from '#shared/issuing/objects.ts';
import { wireAuthorizationService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireAuthorizationService();
const expander = wireExpander('issuing.authorization', issuingExpansions);

/** GET /v1/issuing/authorizations/{id} (`expand[]` card, cardholder) */
export const handler = httpHandler(
  { summary: 'Retrieve an authorization', params: retrieveAuthorizationParams, response: responds<typeof issuingAuthorizationObject>(), expand: expander },
  async ({ caller, pathParameters }) => {
    const { authorization, transactions } = await service.retrieve(caller.scope, pathParameters.id!);
    return { body: serializeAuthorization(authorization, transactions) };
  },
);
