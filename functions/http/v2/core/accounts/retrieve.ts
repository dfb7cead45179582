import { retrieveAccountParams } from '#shared/accounts/read-schemas.ts';
import { serializeAccount } from '#shared/accounts/serializer.ts';
import type { accountObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountService();

/** GET /v2/core/accounts/{account_id} */
export const handler = httpHandler(
  { summary: 'Retrieve an account', params: retrieveAccountParams, response: responds<typeof accountObject>() },
  async ({ origin, params, pathParameters }) => ({
    body: serializeAccount(await service.retrieve(origin, pathParameters.account_id!), params.include),
  }),
);
