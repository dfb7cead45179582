import { serializeAccountToken } from '#shared/accounts/serializer.ts';
import type { accountTokenObject } from '#shared/accounts/objects.ts';
import { wireAccountTokenService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { noParams } from '#shared/wire/params.ts';

const service = wireAccountTokenService();

/** GET /v2/core/account_tokens/{id}: a secret key only. */
export const handler = httpHandler(
  { summary: 'Retrieve an account token', description: 'A secret key only.', params: noParams, response: responds<typeof accountTokenObject>() },
  async ({ origin, pathParameters }) => ({
    body: serializeAccountToken(await service.retrieveAccountToken(origin, pathParameters.id!)),
  }),
);
