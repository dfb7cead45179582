import { httpHandler } from '#shared/http/handler.ts';
import { retrieveTokenParams } from '#shared/tokens/schemas.ts';
import { serializeToken } from '#shared/tokens/serializer.ts';
import { wireTokenService } from '#shared/tokens/wiring.ts';

const service = wireTokenService();

/** GET /v1/tokens/{id} */
export const handler = httpHandler({ params: retrieveTokenParams, allowPublishableKey: true }, async ({ caller, pathParameters }) => ({
  body: serializeToken(await service.retrieve(caller.scope, pathParameters.id!)),
}));
