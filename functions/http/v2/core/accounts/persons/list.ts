import { listPersonsParams } from '#shared/accounts/schemas.ts';
import { serializePerson, personObject } from '#shared/accounts/serializer.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2List, v2ListObject } from '#shared/http/pagination.ts';

const service = wireAccountService();

/** GET /v2/core/accounts/{account_id}/persons: newest first. */
export const handler = httpHandler(
  { params: listPersonsParams, response: v2ListObject(personObject), v2List: true },
  async ({ origin, params, pathParameters, paging }) => {
    const page = await service.listPersons(origin, pathParameters.account_id!, { limit: params.limit ?? 20, startingAfter: paging!.cursor });
    const next = page.hasMore ? paging!.nextPageUrl(page.items.at(-1)!.id) : null;
    return { body: v2List(page.items.map(serializePerson), next) };
  },
);
