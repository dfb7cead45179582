import { createAccountTokenParams } from '#shared/accounts/schemas.ts';
import { serializeAccountToken } from '#shared/accounts/serializer.ts';
import type { accountTokenObject } from '#shared/accounts/objects.ts';
import { wireAccountTokenService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountTokenService();

/** POST /v2/core/account_tokens: takes a publishable key (in live mode only a publishable key), as v1 token creation does. */
export const handler = httpHandler(
  {
    summary: 'Create an account token',
    description: 'Takes a publishable key (in live mode only a publishable key), as v1 token creation does.',
    params: createAccountTokenParams,
    response: responds<typeof accountTokenObject>(),
    allowPublishableKey: true,
  },
  async ({ origin, params, caller, sourceIp, userAgent }) => ({
    body: serializeAccountToken(await service.createAccountToken(origin, params, { keyKind: caller.keyKind, ip: sourceIp, userAgent })),
  }),
);
