import { updatePersonParams } from '#shared/accounts/schemas.ts';
import { serializePerson } from '#shared/accounts/serializer.ts';
import type { personObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountService();

/** POST /v2/core/accounts/{account_id}/persons/{id} */
export const handler = httpHandler(
  { summary: 'Update a person', params: updatePersonParams, response: responds<typeof personObject>() },
  async ({ origin, params, pathParameters }) => ({
    body: serializePerson(await service.updatePerson(origin, pathParameters.account_id!, pathParameters.id!, params)),
  }),
);
