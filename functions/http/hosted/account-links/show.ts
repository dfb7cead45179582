import { accountLinkResponse } from '#shared/account-links/pages.ts';
import { wireHostedFlow } from '#shared/account-links/wiring.ts';
import { htmlHandler } from '#shared/http/html-handler.ts';

const flow = wireHostedFlow();

/** GET /hosted/account_links/{secret}: the link's single use; opens a session and shows the form. */
export const handler = htmlHandler(
  {
    summary: "Open an account link's hosted page",
    description: 'The hosted onboarding page of an account link: its single use, which opens a session (cookie) and shows the form. No API key.',
  },
  async (request) => {
    const outcome = await flow.open(request.pathParameters.secret ?? '', { requestId: request.requestId, ip: request.sourceIp, userAgent: request.userAgent });
    return accountLinkResponse(outcome, request);
  },
);
