import { listPersonsParams } from '#shared/accounts/read-schemas.ts';
import { serializePerson } from '#shared/accounts/serializer.ts';
import type { personObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v2Page, type V2ListObject } from '#shared/wire/pagination.ts';

const service = wireAccountService();

/** GET /v2/core/accounts/{account_id}/persons: newest first. */
export const handler = httpHandler(
  { summary: 'List persons', description: 'Newest first.', params: listPersonsParams, response: responds<V2ListObject<typeof personObject>>(), v2List: true },
  async ({ origin, params, pathParameters, paging }) => {
    const page = await service.listPersons(origin, pathParameters.account_id!, { limit: params.limit ?? 20, startingAfter: paging!.cursor });
    return { body: v2Page(page, serializePerson, paging!, (person) => person.id) };
  },
);
