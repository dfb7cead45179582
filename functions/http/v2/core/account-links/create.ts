import { createAccountLinkParams } from '#shared/account-links/schemas.ts';
import { hostedLinkUrl, serializeAccountLink } from '#shared/account-links/serializer.ts';
import type { accountLinkObject } from '#shared/account-links/objects.ts';
import { wireAccountLinkService } from '#shared/account-links/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireAccountLinkService();

/** POST /v2/core/account_links: a single-use URL to the hosted flow for one of the platform's accounts. */
export const handler = httpHandler(
  {
    summary: 'Create an account link',
    description: "A single-use URL to the hosted onboarding flow for one of the platform's accounts.",
    params: createAccountLinkParams,
    response: responds<typeof accountLinkObject>(),
  },
  async ({ origin, caller, params, baseUrl }) => {
    const { link, secret } = await service.create(origin, caller.credentialId, params);
    return { body: serializeAccountLink(link, hostedLinkUrl(baseUrl, secret)) };
  },
);
