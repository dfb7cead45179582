import { updatePersonParams } from '#shared/accounts/schemas.ts';
import { serializePerson, personObject } from '#shared/accounts/serializer.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireAccountService();

/** POST /v2/core/accounts/{account_id}/persons/{id} */
export const handler = httpHandler(
  { summary: 'Update a person', params: updatePersonParams, response: personObject },
  async ({ origin, params, pathParameters }) => ({
    body: serializePerson(await service.updatePerson(origin, pathParameters.account_id!, pathParameters.id!, params)),
  }),
);
