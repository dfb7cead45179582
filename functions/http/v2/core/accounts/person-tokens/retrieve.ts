import { serializePersonToken } from '#shared/accounts/serializer.ts';
import type { personTokenObject } from '#shared/accounts/objects.ts';
import { wireAccountTokenService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { noParams } from '#shared/wire/params.ts';

const service = wireAccountTokenService();

/** GET /v2/core/accounts/{account_id}/person_tokens/{id}: a secret key only. */
export const handler = httpHandler(
  { summary: 'Retrieve a person token', description: 'A secret key only.', params: noParams, response: responds<typeof personTokenObject>() },
  async ({ origin, pathParameters }) => ({
    body: serializePersonToken(await service.retrievePersonToken(origin, pathParameters.account_id!, pathParameters.id!)),
  }),
);
