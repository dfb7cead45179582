import { createPersonParams } from '#shared/accounts/schemas.ts';
import { serializePerson, type personObject } from '#shared/accounts/serializer.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountService();

/** POST /v2/core/accounts/{account_id}/persons */
export const handler = httpHandler(
  { summary: 'Create a person', params: createPersonParams, response: responds<typeof personObject>() },
  async ({ origin, params, pathParameters }) => ({
    body: serializePerson(await service.createPerson(origin, pathParameters.account_id!, params)),
  }),
);
