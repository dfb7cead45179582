import { httpHandler, responds } from '#shared/http/handler.ts';
import { retrieveTokenParams } from '#shared/tokens/schemas.ts';
import { serializeToken } from '#shared/tokens/serializer.ts';
import type { tokenObject } from '#shared/tokens/objects.ts';
import { wireTokenService } from '#shared/tokens/wiring.ts';

const service = wireTokenService();

/** GET /v1/tokens/{id}: a secret key only (a publishable key may create tokens, never read them back) */
export const handler = httpHandler(
  {
    summary: 'Retrieve a token',
    description: 'A secret key only: a publishable key may create tokens, never read them back.',
    params: retrieveTokenParams,
    response: responds<typeof tokenObject>(),
  },
  async ({ caller, pathParameters }) => ({
    body: serializeToken(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
