import { noParams } from '#shared/wire/params.ts';
import { serializeDeletedPerson } from '#shared/accounts/serializer.ts';
import type { deletedPersonObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountService();

/** DELETE /v2/core/accounts/{account_id}/persons/{id} */
export const handler = httpHandler(
  { summary: 'Delete a person', params: noParams, response: responds<typeof deletedPersonObject>() },
  async ({ origin, pathParameters }) => {
    const person = await service.deletePerson(origin, pathParameters.account_id!, pathParameters.id!);
    return { body: serializeDeletedPerson(person) };
  },
);
