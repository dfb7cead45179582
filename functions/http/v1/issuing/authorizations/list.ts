import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listAuthorizationsParams } from '#shared/issuing/schemas.ts';
import { serializeAuthorization } from '#shared/issuing/serializers.ts';
import type { issuingAuthorizationObject } from '#shared/issuing/objects.ts';
import { wireAuthorizationService } from '#shared/issuing/wiring.ts';
import { issuingExpansions } from '#shared/expansion/loaders/issuing.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireAuthorizationService();
const expander = wireExpander('issuing.authorization', issuingExpansions);

/** GET /v1/issuing/authorizations: newest first; filters card, cardholder, status, created; `expand[]` data.card, data.cardholder. */
export const handler = httpHandler(
  {
    summary: 'List all authorizations',
    description: 'Newest first.',
    params: listAuthorizationsParams,
    response: responds<V1ListObject<typeof issuingAuthorizationObject>>(),
    expand: expander,
  },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), params);
    const items = page.items.map(({ authorization, transactions }) => serializeAuthorization(authorization, transactions));
    return { body: v1List('/v1/issuing/authorizations', { ...page, items }, params) };
  },
);
