import { closeAccountParams } from '#shared/accounts/read-schemas.ts';
import { serializeAccount } from '#shared/accounts/serializer.ts';
import type { accountObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountService();

/** POST /v2/core/accounts/{account_id}/close */
export const handler = httpHandler(
  { summary: 'Close an account', params: closeAccountParams, response: responds<typeof accountObject>() },
  async ({ origin, params, pathParameters }) => ({
    body: serializeAccount(await service.close(origin, pathParameters.account_id!, params)),
  }),
);
