import { createPersonTokenParams } from '#shared/accounts/schemas.ts';
import { serializePersonToken } from '#shared/accounts/serializer.ts';
import type { personTokenObject } from '#shared/accounts/objects.ts';
import { wireAccountTokenService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountTokenService();

/** POST /v2/core/accounts/{account_id}/person_tokens: takes a publishable key (in live mode only a publishable key). */
export const handler = httpHandler(
  {
    summary: 'Create a person token',
    description: 'Takes a publishable key (in live mode only a publishable key).',
    params: createPersonTokenParams,
    response: responds<typeof personTokenObject>(),
    allowPublishableKey: true,
  },
  async ({ origin, params, pathParameters, caller, sourceIp, userAgent }) => ({
    body: serializePersonToken(
      await service.createPersonToken(origin, pathParameters.account_id!, params, { keyKind: caller.keyKind, ip: sourceIp, userAgent }),
    ),
  }),
);
