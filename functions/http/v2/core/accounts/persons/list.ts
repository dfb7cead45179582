import { listPersonsParams } from '#shared/accounts/schemas.ts';
import { serializePerson, personObject } from '#shared/accounts/serializer.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2ListObject, v2Page } from '#shared/wire/pagination.ts';

const service = wireAccountService();

/** GET /v2/core/accounts/{account_id}/persons: newest first. */
export const handler = httpHandler(
  { summary: 'List persons', description: 'Newest first.', params: listPersonsParams, response: v2ListObject(personObject), v2List: true },
  async ({ origin, params, pathParameters, paging }) => {
    const page = await service.listPersons(origin, pathParameters.account_id!, { limit: params.limit ?? 20, startingAfter: paging!.cursor });
    return { body: v2Page(page, serializePerson, paging!, (person) => person.id) };
  },
);
