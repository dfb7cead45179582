import { createAccountParams } from '#shared/accounts/schemas.ts';
import { serializeAccount } from '#shared/accounts/serializer.ts';
import type { accountObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountService();

/** POST /v2/core/accounts: a new connected account of the calling platform. */
export const handler = httpHandler(
  {
    summary: 'Create an account',
    description: 'A new connected account of the calling platform.',
    params: createAccountParams,
    response: responds<typeof accountObject>(),
  },
  async ({ origin, params }) => ({
    body: serializeAccount(await service.create(origin, params), params.include),
  }),
);
