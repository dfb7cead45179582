import { createV1AccountLinkParams } from '#shared/account-links/schemas.ts';
import { hostedLinkUrl, serializeV1AccountLink } from '#shared/account-links/serializer.ts';
import type { v1AccountLinkObject } from '#shared/account-links/objects.ts';
import { wireAccountLinkService } from '#shared/account-links/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountLinkService();

/** POST /v1/account_links: the v1 shape of an account link, to the same hosted flow as v2 links. */
export const handler = httpHandler(
  {
    summary: 'Create an account link (v1)',
    description: 'The v1 shape of an account link, to the same hosted flow as v2 links.',
    params: createV1AccountLinkParams,
    response: responds<typeof v1AccountLinkObject>(),
  },
  async ({ origin, caller, params, baseUrl }) => {
    const { link, secret } = await service.createV1(origin, caller.credentialId, params);
    return { body: serializeV1AccountLink(link, hostedLinkUrl(baseUrl, secret)) };
  },
);
