import { listPersonsParams } from '#shared/accounts/schemas.ts';
import { serializePerson } from '#shared/accounts/serializer.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2List, v2PageState } from '#shared/http/pagination.ts';

const service = wireAccountService();

/** GET /v2/core/accounts/{account_id}/persons: newest first. */
export const handler = httpHandler({ params: listPersonsParams }, async ({ origin, params, pathParameters }) => {
  const accountId = pathParameters.account_id!;
  const state = v2PageState(params);
  const page = await service.listPersons(origin, accountId, { limit: state.limit, startingAfter: state.cursor });
  const next = page.hasMore ? { ...state, cursor: page.items.at(-1)!.id } : undefined;
  return { body: v2List(`/v2/core/accounts/${accountId}/persons`, page.items.map(serializePerson), next) };
});
