import { httpHandler, responds } from '#shared/http/handler.ts';
import { createTokenParams } from '#shared/tokens/schemas.ts';
import { serializeToken } from '#shared/tokens/serializer.ts';
import type { tokenObject } from '#shared/tokens/objects.ts';
import { wireTokenService } from '#shared/tokens/wiring.ts';

const service = wireTokenService();

/** POST /v1/tokens (the one endpoint that takes a publishable key) */
export const handler = httpHandler(
  {
    summary: 'Create a token',
    description: 'The one v1 endpoint that takes a publishable key.',
    params: createTokenParams,
    response: responds<typeof tokenObject>(),
    allowPublishableKey: true,
  },
  async ({ caller, params, sourceIp }) => ({
    body: serializeToken(await service.create(caller.scope, params, sourceIp)),
  }),
);
