import { noParams } from '#shared/http/params.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireAccountService();

/** DELETE /v2/core/accounts/{account_id}/persons/{id} */
export const handler = httpHandler({ params: noParams }, async ({ origin, pathParameters }) => {
  const person = await service.deletePerson(origin, pathParameters.account_id!, pathParameters.id!);
  return { body: { id: person.id, object: 'v2.core.account_person', deleted: true } };
});
