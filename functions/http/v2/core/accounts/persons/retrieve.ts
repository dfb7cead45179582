import { noParams } from '#shared/wire/params.ts';
import { serializePerson } from '#shared/accounts/serializer.ts';
import type { personObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountService();

/** GET /v2/core/accounts/{account_id}/persons/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a person', params: noParams, response: responds<typeof personObject>() },
  async ({ origin, pathParameters }) => ({
    body: serializePerson(await service.retrievePerson(origin, pathParameters.account_id!, pathParameters.id!)),
  }),
);
