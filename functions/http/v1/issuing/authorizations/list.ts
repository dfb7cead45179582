import { httpHandler } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, v1ListObject } from '#shared/http/pagination.ts';
import { listAuthorizationsParams } from '#shared/issuing/schemas.ts';
import { serializeAuthorization, issuingAuthorizationObject } from '#shared/issuing/serializers.ts';
import { wireAuthorizationService } from '#shared/issuing/wiring.ts';

const service = wireAuthorizationService();

/** GET /v1/issuing/authorizations: newest first; filters card, cardholder, status, created; `expand[]` data.card, data.cardholder. */
export const handler = httpHandler(
  { summary: 'List all authorizations', description: 'Newest first.', params: listAuthorizationsParams, response: v1ListObject(issuingAuthorizationObject) },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), params);
    const expand = (params.expand ?? []).map((field) => field.slice('data.'.length));
    const items = await Promise.all(
      page.items.map(async ({ authorization, transactions }) =>
        serializeAuthorization(authorization, transactions, await service.expansions(caller.scope, authorization, expand)),
      ),
    );
    return { body: v1List('/v1/issuing/authorizations', { ...page, items }, params) };
  },
);
