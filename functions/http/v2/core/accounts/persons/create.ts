import { createPersonParams } from '#shared/accounts/schemas.ts';
import { serializePerson } from '#shared/accounts/serializer.ts';
import type { personObject } from '#shared/accounts/objects.ts';
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
