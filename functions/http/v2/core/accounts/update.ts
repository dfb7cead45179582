import { updateAccountParams } from '#shared/accounts/schemas.ts';
import { serializeAccount } from '#shared/accounts/serializer.ts';
import type { accountObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountService();

/** POST /v2/core/accounts/{account_id} */
export const handler = httpHandler(
  { summary: 'Update an account', params: updateAccountParams, response: responds<typeof accountObject>() },
  async ({ origin, params, pathParameters }) => ({
    body: serializeAccount(await service.update(origin, pathParameters.account_id!, params), params.include),
  }),
);
